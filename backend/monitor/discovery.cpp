// SPDX-License-Identifier: MIT
#include "discovery.h"

#include <redis/serverinfo.h>

namespace gatehouse {

Discovery::Discovery(RedisClient *client, std::optional<Profile> profile, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_profile(std::move(profile))
{
    if (m_profile)
        m_match = m_profile->scanGlob();
}

void Discovery::start()
{
    m_running = true;
    m_cancelled = false;
    m_firstStep = true;
    m_cursor = "0";
    m_scanned = 0;
    m_objects.clear();
    m_index.clear();
    m_detector = AutoDetector();
    m_client->pipeline({{"DBSIZE"}, {"TIME"}}, &m_context, [this](const QList<RedisValue> &r) {
        if (r.at(0).isError()) {
            finish(false);
            Q_EMIT failed(QStringLiteral("DBSIZE failed: %1").arg(r.at(0).errorMessage()));
            return;
        }
        m_total = r.at(0).toInteger();
        m_serverNowMs = serverTimeMs(r.at(1));
        Q_EMIT progress(0, m_total);
        step();
    });
}

void Discovery::cancel()
{
    if (m_running)
        m_cancelled = true;
}

void Discovery::step()
{
    if (m_cancelled) {
        finish(true);
        return;
    }
    if (!m_firstStep && m_cursor == "0") {
        finish(false);
        return;
    }
    m_firstStep = false;
    QList<QByteArray> cmd{"SCAN", m_cursor};
    if (m_match != "*")
        cmd << "MATCH" << m_match;
    cmd << "COUNT" << QByteArray::number(m_count);
    m_client->command(cmd, &m_context, [this](const RedisValue &v) {
        if (v.isError() || v.size() != 2) {
            finish(false);
            Q_EMIT failed(QStringLiteral("SCAN failed: %1").arg(v.errorMessage()));
            return;
        }
        m_cursor = v.at(0).bytes();
        QList<QByteArray> keys;
        keys.reserve(v.at(1).size());
        for (const RedisValue &k : v.at(1).elements())
            keys.append(k.bytes());
        m_scanned += keys.size();
        onPage(keys);
    });
}

void Discovery::onPage(const QList<QByteArray> &keys)
{
    if (!m_profile) {
        detect(keys);
        return;
    }
    QList<PatternObject> found;
    for (const QByteArray &key : keys) {
        std::optional<PatternObject> o = m_profile->objectFor(key);
        if (!o)
            continue;
        const auto id = qMakePair(int(o->kind), o->key);
        const auto at = m_index.constFind(id);
        if (at != m_index.cend()) {
            m_objects[*at].members.append(o->members); // token families grow
            continue;
        }
        m_index.insert(id, m_objects.size());
        m_objects.append(*o);
        found.append(*o);
    }
    Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
    if (!found.isEmpty())
        Q_EMIT objectsFound(found);
    step();
}

void Discovery::detect(const QList<QByteArray> &keys)
{
    if (keys.isEmpty()) {
        Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
        step();
        return;
    }
    QList<RedisClient::Command> typeCmds;
    typeCmds.reserve(keys.size() * 2);
    for (const QByteArray &key : keys) {
        typeCmds.append({"TYPE", key});
        typeCmds.append({"PTTL", key});
    }
    m_client->pipeline(typeCmds, &m_context, [this, keys](const QList<RedisValue> &r) {
        QList<KeyShape> shapes;
        QList<RedisClient::Command> shapeCmds;
        QList<int> counts;
        for (qsizetype i = 0; i < keys.size() && 2 * i + 1 < r.size(); ++i) {
            KeyShape s;
            s.key = keys.at(i);
            s.type = r.at(2 * i).bytes();
            s.pttlMs = r.at(2 * i + 1).toInteger();
            const auto cmds = AutoDetector::shapeCommands(s.key, s.type);
            if (cmds.isEmpty())
                continue;
            shapes.append(s);
            shapeCmds.append(cmds);
            counts.append(int(cmds.size()));
        }
        if (shapes.isEmpty()) {
            Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
            step();
            return;
        }
        m_client->pipeline(shapeCmds, &m_context,
                           [this, shapes, counts](const QList<RedisValue> &replies) mutable {
                               qsizetype at = 0;
                               for (qsizetype i = 0; i < shapes.size(); ++i) {
                                   AutoDetector::readShape(shapes[i],
                                                           replies.mid(at, counts.at(i)));
                                   at += counts.at(i);
                                   m_detector.add(shapes.at(i), m_serverNowMs);
                               }
                               Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
                               step();
                           });
    });
}

void Discovery::finish(bool cancelled)
{
    if (!m_running)
        return;
    m_running = false;
    if (!m_profile && !cancelled) {
        m_objects = m_detector.objects();
        if (!m_objects.isEmpty())
            Q_EMIT objectsFound(m_objects);
    }
    Q_EMIT finished(cancelled);
}

void Discovery::releaseObjects()
{
    m_objects = {};
    m_index = {};
    m_detector = AutoDetector();
}

QList<PatternObject> Discovery::objects() const
{
    return m_objects;
}

} // namespace gatehouse
