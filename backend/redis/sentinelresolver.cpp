// SPDX-License-Identifier: MIT
#include "sentinelresolver.h"

#include "redisconnection.h"
#include "userinput.h"

namespace gatehouse {

SentinelResolver::SentinelResolver(RedisEndpoint endpoint, Handler handler, QObject *parent)
    : QObject(parent)
    , m_endpoint(std::move(endpoint))
    , m_handler(std::move(handler))
{}

SentinelResolver::~SentinelResolver()
{
    // The sentinel's connection fails its request as it goes: that callback
    // must not reach a handler whose owner is going away.
    m_done = true;
    delete m_current;
}

void SentinelResolver::start()
{
    ask(0);
}

void SentinelResolver::ask(qsizetype i)
{
    if (m_done)
        return;
    if (i >= m_endpoint.sentinels.size()) {
        Result r;
        r.final = m_unknown == m_endpoint.sentinels.size();
        r.message = QStringLiteral("No sentinel gave the address of master \"%1\" (%2)%3")
                        .arg(echoed(m_endpoint.sentinelMaster), joinClauses(m_problems),
                             r.final ? QStringLiteral("; check the name after # in the URL or "
                                                      "--sentinel-master.")
                                     : QStringLiteral("."));
        finish(r);
        return;
    }
    RedisEndpoint ep = m_endpoint.sentinelEndpoint(i);
    ep.connectTimeoutMs = std::min(ep.connectTimeoutMs, SentinelConnectTimeoutMs);
    const QString address = ep.address();
    if (m_current)
        m_current->deleteLater();
    m_current = new RedisConnection(ep, this);
    m_current->setAutoReconnect(false);
    m_current->open();
    m_current->send({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", m_endpoint.sentinelMaster.toUtf8()},
                    [this, i, address](const RedisValue &reply) {
                        if (m_done)
                            return;
                        if (reply.isFailed()) {
                            m_problems << reply.errorMessage();
                        } else if (reply.isError()) {
                            m_problems << QStringLiteral("sentinel %1 refused: %2")
                                              .arg(echoed(address), reply.errorMessage());
                        } else if (reply.isArray() && reply.size() == 2) {
                            Result r;
                            r.ok = true;
                            r.host = QString::fromUtf8(reply.at(0).bytes());
                            bool ok = false;
                            r.port = quint16(reply.at(1).toInteger(&ok));
                            if (ok && r.port != 0 && !r.host.isEmpty()) {
                                finish(r);
                                return;
                            }
                            m_problems << QStringLiteral("sentinel %1 gave no usable address")
                                              .arg(echoed(address));
                        } else {
                            ++m_unknown;
                            m_problems << QStringLiteral("sentinel %1 monitors no master of "
                                                         "that name")
                                              .arg(echoed(address));
                        }
                        ask(i + 1);
                    });
    m_current->flush();
}

void SentinelResolver::finish(const Result &result)
{
    if (m_done)
        return;
    m_done = true;
    if (m_current) {
        m_current->deleteLater();
        m_current = nullptr;
    }
    // The handler may delete this object: it is the last thing done here.
    const Handler handler = m_handler;
    handler(result);
}

} // namespace gatehouse
