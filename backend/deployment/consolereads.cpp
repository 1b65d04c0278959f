// SPDX-License-Identifier: MIT
#include "consolereads.h"

#include <monitor/tokenlister.h>
#include <redis/redisclient.h>

namespace gatehouse {

ConsoleReads::ConsoleReads(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    if (m_client)
        connect(m_client, &RedisClient::ready, this, &ConsoleReads::ready);
}

bool ConsoleReads::isReady() const
{
    return m_client && m_client->state() == RedisConnection::State::Ready;
}

bool ConsoleReads::readServer(const QObject *context,
                              std::function<void(const ServerFigures &)> handler)
{
    if (!isReady() || m_serverRead.isActive())
        return false;
    m_serverRead = ServerFigures::read(m_client, context, std::move(handler));
    return true;
}

TokenLister *ConsoleReads::newTokenLister(QObject *parent) const
{
    return new TokenLister(m_client, parent);
}

void ConsoleReads::countMatches(const QList<ScriptCall> &calls, qint64 serverNowMs,
                                const QObject *context,
                                std::function<void(const MatchCount::Result &)> handler) const
{
    MatchCount::read(m_client, calls, serverNowMs, context, std::move(handler));
}

} // namespace gatehouse
