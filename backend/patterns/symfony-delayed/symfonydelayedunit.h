// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/libraryqueue/libraryqueueunit.h>

namespace gatehouse {

// Symfony Messenger's Redis transport delayed messages (symfony/redis-
// messenger 5.4, Bridge/Redis/Transport/Connection.php): the ZSET
// "<stream>__queue" of JSON {body, headers, uniqid} scored by the time the
// message is due (epoch ms), beside the transport's STREAM, which the
// stream-group pattern shows with its consumer group. A consumer's get()
// moves the due messages into the stream (ZPOPMIN, then XADD). The
// object's key is the delayed set; related is the stream.
//
// Recognised when the set is named "<stream>__queue" and "<stream>" is a
// stream; a member that is not the transport's message is shown read-only
// as an unknown layout. Stuck: due messages not yet moved (no consumer has
// called get() since). Acts with lua/symfony-delayed/: release delayed
// messages into the stream now. Code: symfonydelayedunit.cpp,
// symfonydelayedjobs.cpp (the job browser).
class SymfonyDelayedUnit final : public LibraryQueueUnit
{
public:
    static constexpr PatternKind Kind{"symfony-delayed"};
    static constexpr int Batch = 100;

    // "<stream>" of "<stream>__queue"; empty when key is not so named.
    static QByteArray streamOf(const QByteArray &key);
    static PatternObject objectForSet(const QByteArray &key);
    // The uniqid a job browser row's ref ("<score>\x1e<uniqid>") names, as
    // release takes it; a bare uniqid as it is.
    static QByteArray messageIdOf(const QByteArray &ref);

    PatternKind kind() const override { return Kind; }
    QString title() const override { return QStringLiteral("Symfony Messenger delayed"); }
    LibraryInfo library() const override
    {
        return {QStringLiteral("symfony-messenger"), QStringLiteral("5")};
    }
    QList<Command> identifyProbe(const QByteArray &target) const override;
    bool identifies(const QByteArray &target, const QList<RedisValue> &replies) const override;
    std::optional<PatternObject> objectFor(const ProfileRule &rule,
                                           const QByteArray &key) const override;
    PatternObject conventionalObject(const QByteArray &key) const override;

    std::optional<KeyClaim> claimKey(const KeyShape &shape, qint64 serverNowMs) const override;
    int groupOrder() const override { return 12; }
    QList<PatternObject> groupClaims(ClaimPool &pool) const override;

    QList<Command> probe(const PatternObject &object, const ProbeContext &context) const override;
    Reading read(const PatternObject &object, const QList<RedisValue> &replies,
                 const ProbeContext &context) const override;

    QList<Figure> figures() const override;
    QList<PatternAction> actions() const override;
    // Its delayed messages by due time: each row the message's uniqid, its
    // class (the Serializer's "type" header, or PhpSerializer's envelope),
    // deliveries and due time; the detail the member with its body decoded.
    JobRead jobPage(const PatternObject &object, const QString &state, qint64 offset,
                    int count) const override;
    JobRead jobDetail(const PatternObject &object, const QByteArray &job) const override;

protected:
    QList<JobState> states() const override;
    StuckRule stuckRule() const override;
    libraryqueue::ColumnOptions columnOptions() const override;
    libraryqueue::JsonOptions jsonOptions() const override;
    // Its stream and the count of due messages.
    void writeLibraryJson(const ObjectState &state, const Reading &r, qint64 nowMs,
                          QJsonObject &json) const override;
};

} // namespace gatehouse
