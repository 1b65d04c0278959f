// SPDX-License-Identifier: MIT
#include "tokenlister.h"

#include <patterns/presentation.h>
#include <redis/redisclient.h>

#include <QSet>

#include <algorithm>
#include <memory>

namespace gatehouse {

struct TokenLister::Run
{
    quint64 generation = 0;
    PatternObject family;
    int limit = 0;
    QByteArray match;
    QStringList nodes; // cluster masters' addresses; empty: the client's own connection
    int node = 0;
    QByteArray cursor = "0";
    int steps = 0;
    bool truncated = false; // a node's SCAN stopped at MaxScanSteps or at the limit
    QSet<QByteArray> seen;
    TokenListing listing;
};

TokenLister::TokenLister(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    qRegisterMetaType<gatehouse::TokenListing>();
}

QByteArray TokenLister::matchFor(const QByteArray &prefix)
{
    QByteArray match;
    match.reserve(prefix.size() + 2);
    for (char c : prefix) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            match += '\\';
        match += c;
    }
    return match + '*';
}

QString TokenLister::masked(const QByteArray &key, const QByteArray &family)
{
    const QByteArray secret = key.startsWith(family) ? key.mid(family.size()) : key;
    const QByteArray prefix = key.startsWith(family) ? family : QByteArray();
    // Enough to tell tokens apart and find one in a log; never the secret.
    return printableBytes(prefix) + printableBytes(secret.left(4)) + QStringLiteral("…");
}

void TokenLister::list(const PatternObject &family, int limit)
{
    auto run = std::make_shared<Run>();
    run->generation = ++m_generation;
    run->family = family;
    run->limit = std::max(1, limit);
    run->match = matchFor(family.key);
    run->listing.family = family.key;
    const Topology &topology = m_client->topology();
    if (topology.isCluster()) {
        for (int i : topology.masters())
            run->nodes << topology.nodes.at(i).address();
    }
    scanStep(std::move(run));
}

void TokenLister::scanStep(std::shared_ptr<Run> run)
{
    if (run->generation != m_generation)
        return; // a newer request took over
    const RedisClient::Command scan{"SCAN",     run->cursor, "MATCH",
                                    run->match, "COUNT",     QByteArray::number(ScanCount)};
    auto handle = [this, run](const RedisValue &reply) {
        if (run->generation != m_generation)
            return;
        if (reply.isError() || !reply.isArray() || reply.size() != 2) {
            run->listing.ok = false;
            run->listing.message
                = QStringLiteral("Listing tokens of \"%1\" failed: SCAN answered %2.")
                      .arg(printableBytes(run->family.key, 80),
                           reply.isError() ? reply.errorMessage() : reply.toDebugString());
            Q_EMIT listed(run->listing);
            return;
        }
        run->cursor = reply.at(0).bytes();
        ++run->steps;
        run->listing.examined += ScanCount;
        for (const RedisValue &k : reply.at(1).elements()) {
            // SCAN may return a key twice; the family's own prefix only (a
            // MATCH on a prefix is exact, this guards a cluster's replies).
            if (int(run->seen.size()) < run->limit && k.bytes().startsWith(run->family.key)
                && k.bytes().size() > run->family.key.size())
                run->seen.insert(k.bytes());
        }
        const bool nodeDone = run->cursor == "0";
        const bool full = int(run->seen.size()) >= run->limit;
        if (!nodeDone && (full || run->steps >= MaxScanSteps))
            run->truncated = true;
        if (!nodeDone && !full && run->steps < MaxScanSteps) {
            scanStep(run);
            return;
        }
        // The next node, if any (a full listing stops here).
        if (!full && run->node + 1 < run->nodes.size()) {
            ++run->node;
            run->cursor = "0";
            run->steps = 0;
            scanStep(run);
            return;
        }
        run->listing.complete
            = !run->truncated && run->node + 1 >= std::max<qsizetype>(1, run->nodes.size());
        readTokens(run);
    };
    if (run->nodes.isEmpty())
        m_client->command(scan, this, handle);
    else
        m_client->commandOn(run->nodes.at(run->node), scan, this, handle);
}

void TokenLister::readTokens(std::shared_ptr<Run> run)
{
    QList<QByteArray> keys(run->seen.cbegin(), run->seen.cend());
    std::sort(keys.begin(), keys.end());
    if (keys.isEmpty()) {
        Q_EMIT listed(run->listing);
        return;
    }
    // Every command O(1) on one key: PTTL, and the value's size (STRLEN) or,
    // for counted tokens, the use counter and the number of fields.
    const bool counted = run->family.countedTokens;
    const int stride = counted ? 3 : 2;
    QList<RedisClient::Command> commands;
    commands.reserve(keys.size() * stride);
    for (const QByteArray &key : std::as_const(keys)) {
        commands.append({"PTTL", key});
        if (counted) {
            commands.append({"HGET", key, run->family.params.countField});
            commands.append({"HLEN", key});
        } else {
            commands.append({"STRLEN", key});
        }
    }
    m_client->pipeline(
        std::move(commands), this, [this, run, keys, counted, stride](const QList<RedisValue> &r) {
            if (run->generation != m_generation)
                return;
            if (r.size() < keys.size() * stride) {
                run->listing.ok = false;
                run->listing.message
                    = QStringLiteral("Reading tokens of \"%1\" got %2 replies for %3 commands.")
                          .arg(printableBytes(run->family.key, 80))
                          .arg(r.size())
                          .arg(keys.size() * stride);
                Q_EMIT listed(run->listing);
                return;
            }
            for (qsizetype i = 0; i < keys.size(); ++i) {
                const RedisValue &pttl = r.at(i * stride);
                if (pttl.isFailed()) {
                    run->listing.ok = false;
                    run->listing.message
                        = QStringLiteral("Reading tokens of \"%1\" failed: %2")
                              .arg(printableBytes(run->family.key, 80), pttl.errorMessage());
                    break;
                }
                TokenRow row;
                row.key = keys.at(i);
                row.pttlMs = pttl.isError() ? -2 : pttl.toInteger();
                if (row.pttlMs == -2)
                    continue; // used, revoked or expired since the SCAN saw it
                if (counted) {
                    const RedisValue &used = r.at(i * stride + 1);
                    const RedisValue &fields = r.at(i * stride + 2);
                    if (!used.isError())
                        row.used = used.isNil() ? 0 : used.toInteger();
                    if (!fields.isError())
                        row.fields = fields.toInteger();
                } else {
                    const RedisValue &length = r.at(i * stride + 1);
                    if (!length.isError())
                        row.payloadBytes = length.toInteger();
                }
                run->listing.rows.append(row);
            }
            Q_EMIT listed(run->listing);
        });
}

} // namespace gatehouse
