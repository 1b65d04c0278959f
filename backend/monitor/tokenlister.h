// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternobject.h>

#include <QMetaType>
#include <QObject>

#include <memory>

namespace gatehouse {

class RedisClient;

// One live token of a family as the console lists it.
struct TokenRow
{
    QByteArray key;           // the whole key (never shown whole: TokenLister::masked)
    qint64 pttlMs = -2;       // -1: no TTL; -2: gone since it was found
    qint64 used = -1;         // counted tokens: the use counter; -1 not counted
    qint64 payloadBytes = -1; // STRING: its length; -1 unknown
    qint64 fields = -1;       // HASH (counted tokens): its fields; -1 not a hash
};

// What one listing of a family found: at most the limit asked for, from a
// bounded SCAN; complete when the SCAN went round every node (so no other
// token of the family existed when it ran).
struct TokenListing
{
    QByteArray family;
    QList<TokenRow> rows; // in key order
    qint64 examined = 0;  // keys the SCAN steps looked at (COUNT is a hint)
    bool complete = false;
    bool ok = true;
    QString message; // what went wrong; empty when nothing
};

// Lists a token family's live tokens for the console: SCAN MATCH
// "<prefix>*" with COUNT on every master, at most MaxScanSteps steps per
// node and no more than the limit asked for, then one pipelined round trip
// (PTTL and STRLEN, or HGET of the use counter and HLEN for counted tokens)
// for the keys found. Asynchronous: a newer request makes an older one's
// replies ignored.
class TokenLister : public QObject
{
    Q_OBJECT
public:
    static constexpr int ScanCount = 1000;
    static constexpr int MaxScanSteps = 50; // per node: at most ~50,000 keys examined

    explicit TokenLister(RedisClient *client, QObject *parent = nullptr);

    // family: a token family (its key is the prefix, countedTokens and
    // params.countField say how its tokens are read).
    void list(const PatternObject &family, int limit);
    // The key as the console shows it: the prefix and the first 4
    // characters of the secret part ("code:AbC1…").
    static QString masked(const QByteArray &key, const QByteArray &family);
    // SCAN's MATCH for keys starting with prefix (glob characters escaped).
    static QByteArray matchFor(const QByteArray &prefix);

Q_SIGNALS:
    void listed(const gatehouse::TokenListing &listing);

private:
    struct Run;
    void scanStep(std::shared_ptr<Run> run);
    void readTokens(std::shared_ptr<Run> run);

    RedisClient *m_client;
    quint64 m_generation = 0;
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::TokenListing)
