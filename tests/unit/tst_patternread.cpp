// SPDX-License-Identifier: MIT
// Pattern units reading replies of the wrong length or shape, without a
// server: regressions of what fuzz_patternread explores (tests/fuzz).

#include <monitor/profile.h>
#include <patterns/patternregistry.h>

#include <QtTest>

using namespace gatehouse;

namespace {

constexpr qint64 s_now = qint64(1'780'000'000'000);

// An instance of every registered pattern, under its conventional key names.
PatternObject objectOf(PatternKind kind)
{
    PatternObject o = PatternUnit::of(kind).conventionalObject("k:1");
    if (PatternUnit::of(kind).keyField() == QLatin1String("prefix")) { // a token family
        o.key = "code:";
        o.members = {"code:a", "code:b", "code:c"};
        o.countedTokens = true;
    }
    return o;
}

// Replies of every type, in a rotating order: wrong shapes for every probe.
QList<RedisValue> oddReplies(qsizetype n, int rotate)
{
    const QList<RedisValue> kinds{
        RedisValue::array({RedisValue::bulk("m")}), // odd-length WITHSCORES
        RedisValue::bulk("not a number"),
        RedisValue::nil(),
        RedisValue::integer(std::numeric_limits<qint64>::min()),
        RedisValue::array({RedisValue::array({RedisValue::integer(1)}), RedisValue::nil()}),
        RedisValue::status("OK"),
        RedisValue::integer(-2),
        RedisValue::bulk("1e300"),
    };
    QList<RedisValue> out;
    for (qsizetype i = 0; i < n; ++i)
        out.append(kinds.at((i + rotate) % kinds.size()));
    return out;
}

} // namespace

class tst_PatternRead : public QObject
{
    Q_OBJECT

private slots:
    void fewerRepliesThanCommands_data()
    {
        QTest::addColumn<QString>("kind");
        for (PatternKind kind : allPatterns())
            QTest::newRow(qPrintable(patternId(kind))) << kind.id();
        QVERIFY(allPatterns().size() >= 8);
    }

    // Found by fuzz_patternread: a token family read a short reply list as
    // fewer live tokens (even "Missing"). Every unit says Error, with why.
    void fewerRepliesThanCommands()
    {
        QFETCH(QString, kind);
        const PatternObject o = objectOf(*patternFromId(kind));
        const PatternUnit &unit = PatternUnit::of(o.kind);
        ProbeContext context;
        context.nowMs = s_now;
        const qsizetype asked = unit.probe(o, context).size();
        QVERIFY(asked > 0);
        for (qsizetype n = 0; n < asked; ++n) {
            QList<RedisValue> replies;
            for (qsizetype i = 0; i < n; ++i)
                replies.append(RedisValue::integer(5));
            const Reading reading = unit.read(o, replies, context);
            QCOMPARE(reading.status, Reading::Status::Error);
            QVERIFY2(reading.message.contains(QLatin1String("replies for")),
                     qPrintable(reading.message));
            QCOMPARE(unit.validUntilMs(o, reading), s_now);
        }
    }

    void wrongShapesGiveAReading_data() { fewerRepliesThanCommands_data(); }

    // Arrays where counts are expected, odd-length score lists, huge numbers:
    // a Reading at the probe's time, never a crash.
    void wrongShapesGiveAReading()
    {
        QFETCH(QString, kind);
        const PatternObject o = objectOf(*patternFromId(kind));
        const PatternUnit &unit = PatternUnit::of(o.kind);
        for (bool detail : {false, true}) {
            ProbeContext context;
            context.nowMs = s_now;
            context.detail = detail;
            const qsizetype asked = unit.probe(o, context).size();
            TrackState track;
            for (int rotate = 0; rotate < 8; ++rotate) {
                const Reading reading = unit.read(o, oddReplies(asked, rotate), context);
                QCOMPARE(reading.atMs, s_now);
                (void)unit.validUntilMs(o, reading);
                (void)reading.at(s_now + 5000);
                // The next shape read with what the unit tracked of this one.
                unit.track(track, reading, s_now);
                track.everRead = true;
                context.track = track.ownPart();
            }
        }
    }

    // Found by fuzz_patternread: a PTTL of 2^63-1 overflowed atMs + PTTL in
    // validUntilMs(); a legacy lock holding "1e300" overflowed its conversion.
    void hugeReplyNumbersSaturate()
    {
        ProbeContext context;
        context.nowMs = s_now;
        const qint64 max = std::numeric_limits<qint64>::max();
        for (PatternKind kind : {PatternKind("fixed-window"), PatternKind("lock")}) {
            const PatternObject o = objectOf(kind);
            const PatternUnit &unit = PatternUnit::of(kind);
            const Reading reading
                = unit.read(o, {RedisValue::bulk("1"), RedisValue::integer(max)}, context);
            QVERIFY(reading.isOk());
            QCOMPARE(unit.validUntilMs(o, reading), max);
            QCOMPARE(reading.at(s_now + 1000).pttlMs, max - 1000);
        }
        const PatternObject legacy = objectOf(PatternKind("legacy-lock"));
        const Reading reading
            = PatternUnit::of(PatternKind("legacy-lock"))
                  .read(legacy, {RedisValue::bulk("1e300"), RedisValue::integer(-1)}, context);
        QCOMPARE(reading.status, Reading::Status::WrongType);
    }

    // Found by fuzz_profile: numbers past 2^53 overflowed the conversion, and
    // toJson() lost pageSize and windows given in seconds past 2^53 ms.
    void profileRoundTrip()
    {
        QString error;
        QVERIFY(!Profile::fromJson(R"({"name": "x", "rules": [{"pattern": "lock",
                "match": "l:*", "pageSize": 1e300}]})",
                                   QStringLiteral("big.json"), &error));
        QVERIFY2(error.contains(QLatin1String("pageSize")), qPrintable(error));
        const auto p = Profile::fromJson(R"({"name": "x", "rules": [{"pattern": "fixed-window",
                "match": "f:*", "limit": 5, "window": 9007199254740992, "windowUnit": "s",
                "pageSize": 7}]})",
                                         QStringLiteral("p.json"), &error);
        QVERIFY2(p, qPrintable(error));
        const auto again = Profile::fromJson(p->toJson(), QStringLiteral("again.json"), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->rules.at(0).params.pageSize, 7);
        QCOMPARE(again->rules.at(0).params.windowMs, p->rules.at(0).params.windowMs);
        QCOMPARE(again->toJson(), p->toJson());
    }

    // Found by fuzz_patternread (UBSan: a double outside int's range): a
    // limiter or semaphore counting billions against a limit of 1 shows its
    // occupancy, not undefined behaviour.
    void hugeOccupancyIsShown()
    {
        ObjectState s;
        s.object.edit().kind = *patternFromId(QStringLiteral("sorted-set-semaphore"));
        s.reading.inWindow = qint64(5'707'130'000);
        s.reading.limit = 1;
        QCOMPARE(Column::occupancy().text(s, 0), QStringLiteral("570713000000 %"));
        s.reading.limit = 0;
        QVERIFY(!Column::occupancy().text(s, 0).isEmpty());
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            s.object.edit().kind = unit->kind();
            for (const Column &c : unit->columns())
                QVERIFY(!c.header.isEmpty() && c.text);
        }
        QCOMPARE(formatPercent(qInf()), QStringLiteral("?"));
        QCOMPARE(formatPercent(0.8), QStringLiteral("80"));
    }
};

QTEST_GUILESS_MAIN(tst_PatternRead)
#include "tst_patternread.moc"
