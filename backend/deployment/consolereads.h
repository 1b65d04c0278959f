// SPDX-License-Identifier: MIT
#pragma once

#include <actions/matchcount.h>
#include <redis/serverfigures.h>

#include <QObject>

#include <functional>

namespace gatehouse {

class RedisClient;
class TokenLister;

// The reads the console makes beyond the monitor's snapshots, on the
// connection it is given: the server panel's INFO, a token family's live
// tokens, how many objects a batch action matches now. Widgets hold this and
// ask it; they never hold a client. Replies come back on the asking object's
// thread; the GUI thread never waits.
class ConsoleReads : public QObject
{
    Q_OBJECT
public:
    explicit ConsoleReads(RedisClient *client, QObject *parent = nullptr);

    // Whether the connection is up (a read asked now is sent).
    bool isReady() const;
    // One INFO read into figures, handed to handler unless context is gone
    // first. At most one in flight: false (nothing sent) while one is, or
    // while the connection is down.
    bool readServer(const QObject *context, std::function<void(const ServerFigures &)> handler);
    // A lister of token families' live tokens (bounded SCAN), parented to
    // parent, on this connection.
    TokenLister *newTokenLister(QObject *parent) const;
    // How many objects calls would act on now (MatchCount::read); serverNowMs:
    // the server's clock now.
    void countMatches(const QList<ScriptCall> &calls, qint64 serverNowMs, const QObject *context,
                      std::function<void(const MatchCount::Result &)> handler) const;

Q_SIGNALS:
    // The connection is (again) ready.
    void ready();

private:
    RedisClient *m_client;
    RequestHandle m_serverRead;
};

} // namespace gatehouse
