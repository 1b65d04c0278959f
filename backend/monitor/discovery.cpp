// SPDX-License-Identifier: MIT
#include "discovery.h"
#include "transientreply.h"

#include <redis/serverinfo.h>

#include <QCryptographicHash>
#include <QLocale>

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gatehouse {

namespace {

// A harmless script for probing EVALSHA and EVAL permissions: it touches no key.
const QByteArray s_probeScript = QByteArrayLiteral("return 0");

bool isNoPerm(const RedisValue &v)
{
    return v.isError() && v.errorCode() == "NOPERM";
}

// A refusal that passes by itself: the scan is cut and made again, not a
// reason to stop watching.
bool isTransient(const RedisValue &v)
{
    return isTransientRefusal(v);
}

// NOPERM on the keys ("no permissions to access one of the keys") rather
// than on the command ("no permissions to run the 'type' command").
bool isKeyNoPerm(const RedisValue &v)
{
    return isNoPerm(v) && v.errorMessage().contains(QLatin1String("access"));
}

QString count(qint64 n)
{
    return QLocale(QLocale::English).toString(n);
}

QString keysText(qint64 n)
{
    return n == 1 ? QStringLiteral("the 1 key") : QStringLiteral("the %1 keys").arg(count(n));
}

} // namespace

Discovery::Discovery(QList<RedisClient *> nodes, std::optional<Profile> profile, QObject *parent)
    : QObject(parent)
    , m_nodes(std::move(nodes))
    , m_profile(std::move(profile))
{
    Q_ASSERT(!m_nodes.isEmpty());
    if (m_profile && m_profile->autodetect) { // every key, judged, with its verdicts
        m_hints = std::move(m_profile);
        m_profile.reset();
    }
    if (m_profile)
        m_match = m_profile->scanGlob();
}

void Discovery::setTopology(const Topology &topology)
{
    m_topology = topology;
    m_addresses.clear();
    m_owners.clear();
    if (!topology.isCluster())
        return;
    for (int i : topology.masters()) {
        if (topology.nodes.at(i).slotRanges.isEmpty())
            continue; // a master without slots holds no keys to find
        m_addresses << topology.nodes.at(i).address();
        m_owners << i;
    }
}

void Discovery::start()
{
    m_running = true;
    m_cancelled = false;
    m_cutReason.clear();
    m_firstStep = true;
    m_cursor = "0";
    m_pagesInFlight = 0;
    m_scanWaiting = false;
    m_node = 0;
    m_scanned = 0;
    m_objects.clear();
    m_index.clear();
    m_detector = AutoDetector();
    if (m_hints)
        m_detector.setHints(*m_hints);
    m_candidates.clear();
    m_other.clear();
    m_memorySamples = true;
    m_complete = true;
    m_typeRefused = false;
    m_keysRefused = 0;
    m_keysUnread = 0;
    m_unreadError.clear();
    m_permissionNotes.clear();
    m_missing.clear();
    const QByteArray probeSha
        = QCryptographicHash::hash(s_probeScript, QCryptographicHash::Sha1).toHex();
    // The other nodes' keys count towards the progress's total.
    m_total = 0;
    for (qsizetype i = 1; i < m_nodes.size(); ++i) {
        m_nodes.at(i)->command({"DBSIZE"}, &m_context, [this](const RedisValue &v) {
            if (!v.isError())
                m_total += v.toInteger();
        });
    }
    // A Cluster: DBSIZE is per node; the first pipeline's (the seed's) is not counted.
    for (qsizetype i = 0; i < m_addresses.size(); ++i) {
        m_nodes.first()->commandOn(m_addresses.at(i), {"DBSIZE"}, &m_context,
                                   [this](const RedisValue &v) {
                                       if (!v.isError())
                                           m_total += v.toInteger();
                                   });
    }
    // EVALSHA of a script that touches nothing: NOSCRIPT or 0 means allowed.
    m_nodes.first()->pipeline(
        {{"DBSIZE"}, {"TIME"}, {"EVALSHA", probeSha, "0"}, {"INFO", "server"}}, &m_context,
        [this](const QList<RedisValue> &r) {
            if (r.at(0).isFailed() || isTransient(r.at(0))) { // cut, scanned again (see SCAN)
                if (isTransient(r.at(0)))
                    m_cutReason = r.at(0).errorMessage();
                finish(true);
                return;
            }
            if (r.at(0).isError() && !isNoPerm(r.at(0))) {
                finish(false);
                Q_EMIT failed(QStringLiteral("DBSIZE failed: %1").arg(r.at(0).errorMessage()));
                return;
            }
            if (m_addresses.isEmpty()) // only shown as progress
                m_total += r.at(0).isError() ? 0 : r.at(0).toInteger();
            m_serverNowMs = serverTimeMs(r.at(1));
            // Which commands the shape reads may use (INFO refused: the oldest's).
            m_server = r.value(3).isError()
                           ? ServerIdentity()
                           : ServerIdentity::fromInfo(parseInfo(r.value(3).bytes()));
            Q_EMIT progress(0, m_total);
            if (!isNoPerm(r.at(2))) {
                step();
                return;
            }
            m_nodes.first()->command(
                {"EVAL", s_probeScript, "0"}, &m_context, [this](const RedisValue &v) {
                    const QString user = userName();
                    if (isNoPerm(v)) {
                        refused(QStringLiteral("evalsha"), QString(), false);
                        refused(QStringLiteral("eval"),
                                QStringLiteral("This Redis user may run neither EVALSHA nor EVAL "
                                               "(NOPERM): every action (release, extend, requeue, "
                                               "revoke, reset, issue) will be refused; grant them "
                                               "with ACL SETUSER %1 +evalsha +eval.")
                                    .arg(user),
                                false); // the readings need no script: the snapshot is whole
                    } else {
                        refused(
                            QStringLiteral("evalsha"),
                            QStringLiteral("This Redis user may not run EVALSHA (NOPERM): "
                                           "actions send their scripts whole with EVAL instead; "
                                           "grant it with ACL SETUSER %1 +evalsha.")
                                .arg(user),
                            false);
                    }
                    step();
                });
        });
}

QString Discovery::userName() const
{
    const QString user = m_nodes.first()->endpoint().user;
    // Not cut: the server accepted it at AUTH, so it is one of its ACL users.
    return user.isEmpty() ? QStringLiteral("default") : user;
}

void Discovery::refused(const QString &id, const QString &note, bool incomplete)
{
    if (!m_missing.contains(id))
        m_missing << id;
    if (!note.isEmpty())
        m_permissionNotes << note;
    if (incomplete)
        m_complete = false;
}

bool Discovery::notThere(const RedisValue &type, const QByteArray &key)
{
    if (!type.isError() && type.bytes() != "none")
        return false;
    if (m_keysOnly) { // gone, or unread (a slot moving): not judged
        m_missingKeys.append(key);
        if (type.isError())
            m_unreadKeys.append(key);
    } else if (type.isError()) { // a node that lists its keys but cannot read them
        ++m_keysUnread;
        if (m_unreadError.isEmpty())
            m_unreadError = type.errorMessage();
    }
    return true; // or expired since SCAN listed it
}

void Discovery::noteUnreadableKeys()
{
    if (m_typeRefused) {
        refused(QStringLiteral("type"),
                QStringLiteral("This Redis user may not run TYPE (NOPERM): Gatehouse cannot "
                               "tell what %1; grant it with ACL SETUSER %2 +type.")
                    .arg(keysText(std::max(m_scanned, m_total))
                             + (std::max(m_scanned, m_total) == 1 ? QStringLiteral(" is")
                                                                  : QStringLiteral(" are")),
                         userName()),
                true);
    }
    if (m_keysUnread > 0) { // not a permission: said, and the pass is not whole
        m_permissionNotes << QStringLiteral("%1 listed by SCAN could not be read (%2): what "
                                            "they are is not known, and structures among them "
                                            "are not shown.")
                                 .arg(keysText(m_keysUnread), m_unreadError);
        m_complete = false;
    }
    if (m_keysRefused == 0)
        return;
    const QString grant = QStringLiteral("grant them with ACL SETUSER %1 ~<pattern> "
                                         "(%R~<pattern> to read only)")
                              .arg(userName());
    if (m_keysRefused >= m_scanned) {
        refused(QStringLiteral("keys"),
                QStringLiteral("This Redis user may read none of %1 (NOPERM: its key patterns "
                               "allow none of them); %2.")
                    .arg(keysText(m_scanned), grant),
                true);
    } else {
        refused(QStringLiteral("keys"),
                QStringLiteral("This Redis user may not read %1 of %2 (NOPERM: its key patterns "
                               "leave them out), so they are not shown; %3.")
                    .arg(count(m_keysRefused), keysText(m_scanned), grant),
                true);
    }
}

void Discovery::cancel()
{
    if (m_running)
        m_cancelled = true;
}

void Discovery::step(int node)
{
    if (!m_running)
        return; // a page of another node arrived after the end
    if (m_cancelled) {
        finish(true);
        return;
    }
    if (!m_addresses.isEmpty()) {
        // A Cluster: every master is scanned at once, one SCAN step in
        // flight per master, each from its own cursor.
        if (node < 0) {
            m_cursors = QList<QByteArray>(m_addresses.size(), QByteArray("0"));
            m_nodesLeft = int(m_addresses.size());
            for (int i = 0; i < m_addresses.size(); ++i)
                scan(i);
            return;
        }
        if (m_cursors.at(node) == "0") {
            if (--m_nodesLeft == 0 && !readDeferred())
                finish(false);
            return;
        }
        scan(node);
        return;
    }
    if (!m_firstStep && m_cursor == "0") {
        if (readDeferred())
            return; // then here again
        if (m_node + 1 >= nodeCount()) {
            finish(false);
            return;
        }
        ++m_node; // the next node's keys, from its own cursor's start
    }
    m_firstStep = false;
    scan(-1);
}

void Discovery::scan(int node)
{
    if (m_keysOnly && node < 0) { // setKeys(): one page, then the end
        QList<QByteArray> keys = std::exchange(m_fixedKeys, {});
        m_scanned += keys.size();
        m_cursor = "0";
        if (m_profile) {
            onPage(keys, node);
            return;
        }
        ++m_pagesInFlight;
        detect(keys, node);
        return;
    }
    QList<QByteArray> cmd{"SCAN", node < 0 ? m_cursor : m_cursors.at(node)};
    if (m_match != "*")
        cmd << "MATCH" << m_match;
    cmd << "COUNT" << QByteArray::number(m_count);
    const auto onReply = [this, node](const RedisValue &v) {
        if (!m_running)
            return;
        if (isNoPerm(v)) {
            refused(QStringLiteral("scan"),
                    QStringLiteral("This Redis user may not run SCAN (NOPERM): Gatehouse cannot "
                                   "list %1 (DBSIZE); grant it with ACL SETUSER %2 +scan.")
                        .arg(keysText(m_total), userName()),
                    true);
            finish(false);
            return;
        }
        if (v.isFailed() || isTransient(v)) {
            // No reply at all (a node killed or its connection lost), or a
            // refusal that passes (BUSY, LOADING): the scan is cut, not
            // refused. What it found so far is not the keyspace; the monitor
            // scans again once the node answers.
            if (isTransient(v))
                m_cutReason = v.errorMessage();
            finish(true);
            return;
        }
        if (v.isError() || v.size() != 2) {
            finish(false);
            Q_EMIT failed(QStringLiteral("SCAN failed: %1").arg(v.errorMessage()));
            return;
        }
        QList<QByteArray> keys;
        keys.reserve(v.at(1).size());
        for (const RedisValue &k : v.at(1).elements())
            keys.append(k.bytes());
        m_scanned += keys.size();
        if (node < 0) {
            m_cursor = v.at(0).bytes();
            if (!m_profile) {
                // Autodetecting, a page takes two more round trips (TYPE and
                // PTTL, then its shapes): the next pages are scanned meanwhile,
                // at most MaxPagesInFlight at a time, so the wire never idles.
                // The next SCAN goes first, ahead of this page's TYPEs: the
                // server answers it, then works through them while this
                // client turns its reply into the next page's commands (sent
                // after them, the server waited for those between pages).
                ++m_pagesInFlight;
                if (m_cursor != "0" && m_running) {
                    if (m_pagesInFlight < MaxPagesInFlight)
                        step(node);
                    else
                        m_scanWaiting = true;
                }
                detect(keys, node);
                return;
            }
        } else {
            m_cursors[node] = v.at(0).bytes();
            // Only the owner's copy counts (a migrating key is on two nodes).
            const int owner = m_owners.at(node);
            keys.removeIf([this, owner](const QByteArray &key) {
                return m_topology.ownerOfKey(key) != owner;
            });
        }
        onPage(keys, node);
    };
    if (node < 0)
        client()->command(cmd, &m_context, onReply);
    else
        m_nodes.first()->commandOn(m_addresses.at(node), cmd, &m_context, onReply);
}

void Discovery::onPage(const QList<QByteArray> &keys, int node)
{
    if (!m_profile) {
        detect(keys, node);
        return;
    }
    QList<PatternObject> found;
    for (const QByteArray &key : keys) {
        std::optional<PatternObject> o = m_profile->objectFor(key);
        if (!o)
            continue;
        const auto id = qMakePair(o->kind, o->key);
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
    step(node);
}

bool Discovery::readDeferred()
{
    if (m_profile)
        return false;
    const QList<QByteArray> keys = m_detector.takeDeferred();
    if (keys.isEmpty())
        return false;
    detect(keys, DeferredNode, true);
    return true;
}

void Discovery::detect(const QList<QByteArray> &keys, int node, bool readWhole)
{
    if (keys.isEmpty()) {
        Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
        pageDone(node);
        return;
    }
    // A key of a family settled as ordinary on its first keys is only
    // counted: TYPE, no PTTL and no shape (AutoDetector::SettleSample).
    QList<int> indices; // AutoDetector::familyIndex
    QList<bool> whole;
    indices.reserve(keys.size());
    whole.reserve(keys.size());
    QList<RedisClient::Command> typeCmds;
    typeCmds.reserve(keys.size() * 2);
    // Shared, not allocated per command: a million keys.
    static const QByteArray s_type = QByteArrayLiteral("TYPE");
    static const QByteArray s_pttl = QByteArrayLiteral("PTTL");
    for (const QByteArray &key : keys) {
        indices.append(m_detector.familyIndexOfKey(key));
        whole.append(readWhole || !m_detector.settledAt(indices.constLast()));
        typeCmds.append({s_type, key});
        if (whole.constLast())
            typeCmds.append({s_pttl, key});
    }
    client()->pipeline(
        typeCmds, &m_context, [this, keys, indices, whole, node](const QList<RedisValue> &r) {
            QList<KeyShape> shapes;
            QList<QByteArray> shapeFamilies;
            QList<RedisClient::Command> shapeCmds;
            QList<int> counts;   // shape commands per key
            QList<bool> sampled; // a MEMORY USAGE follows them
            QList<bool> late;    // PTTL comes first: a settled family's key of another TYPE
            qsizetype at = 0;
            for (qsizetype i = 0; i < keys.size() && at < r.size(); ++i) {
                const RedisValue &type = r.at(at);
                const bool read = whole.at(i);
                const qsizetype pttlAt = read ? at + 1 : -1;
                at += read ? 2 : 1;
                if (isKeyNoPerm(type)) {
                    ++m_keysRefused;
                    continue;
                }
                if (isNoPerm(type)) {
                    m_typeRefused = true;
                    continue;
                }
                if (notThere(type, keys.at(i)))
                    continue;
                // Most keys: a settled family's, counted (no shape built).
                if (!read && m_detector.countAt(indices.at(i), type.bytes(), keys.at(i)))
                    continue;
                KeyShape s;
                s.key = keys.at(i);
                s.type = type.bytes();
                const QByteArray family
                    = m_detector.familyAt(indices.at(i)); // a copy: add() may grow the families
                if (read)
                    s.pttlMs = r.value(pttlAt).toInteger();
                auto cmds = AutoDetector::shapeCommands(s.key, s.type);
                // The ordinary keys' size, sampled: the first few of each family
                // (MEMORY USAGE samples nested values, so it stays bounded).
                const bool memory = m_memorySamples && m_detector.wantsMemorySample(s.key);
                if (read && cmds.isEmpty() && !memory) {
                    m_detector.add(s, m_serverNowMs, family); // counted in its family
                    continue;
                }
                if (!read)
                    cmds.prepend({"PTTL", s.key});
                shapes.append(s);
                shapeFamilies.append(family);
                shapeCmds.append(cmds);
                if (memory)
                    shapeCmds.append({"MEMORY", "USAGE", s.key});
                counts.append(int(cmds.size()));
                sampled.append(memory);
                late.append(!read);
            }
            if (shapes.isEmpty()) {
                Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
                pageDone(node);
                return;
            }
            client()->pipeline(
                shapeCmds, &m_context,
                [this, shapes, shapeFamilies, counts, sampled, late,
                 node](const QList<RedisValue> &replies) mutable {
                    qsizetype at = 0;
                    QList<bool> refused(shapes.size(), false);
                    for (qsizetype i = 0; i < shapes.size(); ++i) {
                        QList<RedisValue> mine = replies.mid(at, counts.at(i));
                        at += counts.at(i);
                        if (sampled.at(i)) {
                            const RedisValue &m = replies.value(at);
                            if (!m.isError() && !m.isNil())
                                m_detector.addMemorySample(shapes.at(i).key, m.toInteger());
                            else if (isNoPerm(m))
                                m_memorySamples = false; // not this user's
                            ++at;
                        }
                        if (std::any_of(mine.cbegin(), mine.cend(), isKeyNoPerm)) {
                            ++m_keysRefused; // read-only patterns may allow TYPE only
                            refused[i] = true;
                            continue;
                        }
                        if (late.at(i) && !mine.isEmpty())
                            shapes[i].pttlMs = mine.takeFirst().toInteger();
                        AutoDetector::readShape(shapes[i], mine);
                    }
                    readFieldTtls(std::move(shapes), shapeFamilies, refused, node);
                });
        });
}

void Discovery::readFieldTtls(QList<KeyShape> shapes, const QList<QByteArray> &families,
                              const QList<bool> &refused, int node)
{
    // Per-field TTLs exist only on servers that have them: nothing is sent
    // to the others, and their hashes are judged without.
    QList<RedisClient::Command> cmds;
    QList<qsizetype> asked;
    if (m_server.has(ServerIdentity::Capability::HashFieldExpiry)) {
        for (qsizetype i = 0; i < shapes.size(); ++i) {
            if (refused.at(i))
                continue;
            if (QList<QByteArray> cmd = AutoDetector::fieldTtlCommand(shapes.at(i));
                !cmd.isEmpty()) {
                cmds.append(std::move(cmd));
                asked.append(i);
            }
        }
    }
    const auto judge = [this, families, refused, node](QList<KeyShape> &all) {
        for (qsizetype i = 0; i < all.size(); ++i) {
            if (!refused.at(i))
                m_detector.add(all.at(i), m_serverNowMs, families.at(i));
        }
        Q_EMIT progress(m_scanned, std::max(m_total, m_scanned));
        pageDone(node);
    };
    if (cmds.isEmpty()) {
        judge(shapes);
        return;
    }
    client()->pipeline(
        cmds, &m_context,
        [shapes = std::move(shapes), asked, judge](const QList<RedisValue> &replies) mutable {
            for (qsizetype k = 0; k < asked.size(); ++k)
                AutoDetector::readFieldTtls(shapes[asked.at(k)], replies.value(k));
            judge(shapes);
        });
}

void Discovery::pageDone(int node)
{
    if (node == DeferredNode) { // the scan's end, now whole
        if (m_addresses.isEmpty())
            step(-1); // the next node, or the end
        else
            finish(m_cancelled);
        return;
    }
    if (node >= 0) { // a Cluster master: one step at a time
        step(node);
        return;
    }
    --m_pagesInFlight;
    if (m_scanWaiting) { // the scan waited for room
        m_scanWaiting = false;
        step(node);
    } else if (m_pagesInFlight == 0 && m_cursor == "0") {
        step(node); // the node's last page: the next node, or the end
    }
}

void Discovery::finish(bool cancelled)
{
    if (!m_running)
        return;
    m_running = false;
    if (!cancelled)
        noteUnreadableKeys();
    if (!m_profile && !cancelled) {
        Detection d = m_detector.takeDetection();
        m_objects = std::move(d.objects);
        m_candidates = std::move(d.candidates);
        m_other = std::move(d.other);
#if defined(__GLIBC__)
        // The claim pool of a large keyspace was freed in small blocks that
        // glibc keeps for this process: given back, so the console's
        // resident memory is what it shows, not what discovery once held.
        malloc_trim(0);
#endif
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
    m_candidates = {};
    m_other = {};
}

Profile Discovery::suggestedProfile() const
{
    // The objects detection grouped (the detector's claims are consumed).
    return AutoDetector::suggestedProfile(m_profile ? QList<PatternObject>() : m_objects);
}

QList<PatternObject> Discovery::objects() const
{
    return m_objects;
}

} // namespace gatehouse
