// SPDX-License-Identifier: MIT
#pragma once

#include "autodetector.h"
#include "profile.h"

#include <redis/redisclient.h>

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>

namespace gatehouse {

// Finds the pattern instances in one database of a set of nodes (a standalone
// server is one node; a Cluster's masters each hold their share of the keys):
// SCAN with MATCH and COUNT (never KEYS), node after node, one cursor step in
// flight at a time so no server is ever flooded. With a profile, keys are matched by name only (the
// readings report wrong types later); without one, TYPE, PTTL and a bounded shape read are
// pipelined per SCAN page and AutoDetector groups the keys at the end.
//
// Results stream out: objectsFound for every page with new instances (profile
// mode), progress against DBSIZE; cancel() stops after the step in flight.
class Discovery : public QObject
{
    Q_OBJECT
public:
    // nodes: never empty; the first answers the permission probes (EVALSHA,
    // EVAL), every one is scanned and counted (DBSIZE).
    Discovery(QList<RedisClient *> nodes, std::optional<Profile> profile,
              QObject *parent = nullptr);
    Discovery(RedisClient *client, std::optional<Profile> profile, QObject *parent = nullptr)
        : Discovery(QList<RedisClient *>{client}, std::move(profile), parent)
    {}

    void setScanCount(int count) { m_count = count; }
    void start();
    void cancel();
    bool isRunning() const { return m_running; }

    // After finished(): every instance found; token families carry all members.
    QList<PatternObject> objects() const;
    // Frees what the scan kept (the objects and, autodetecting, the shapes
    // of the keys): the monitor keeps its own copy; objects() is then empty.
    void releaseObjects();
    // After finished() in autodetect mode: the instances whose evidence was
    // not enough to show them, and the ordinary keys by family.
    QList<Candidate> candidates() const { return m_candidates; }
    QList<OtherFamily> otherFamilies() const { return m_other; }
    // After finished() in autodetect mode: the profile that would find the same.
    Profile suggestedProfile() const { return m_detector.suggestedProfile(); }
    qint64 scannedKeys() const { return m_scanned; }

    // After finished(): what this Redis user may not do that discovery needed
    // (NOPERM on SCAN, TYPE, the keys themselves, EVALSHA, EVAL), each as a
    // sentence saying what is missing and what to grant, and as an id
    // ("scan", "type", "keys", "evalsha", "eval"). complete() is false when
    // keys exist that Gatehouse could not list or read: the objects are then
    // what could be read, not everything there is.
    QStringList permissionNotes() const { return m_permissionNotes; }
    QStringList missingPermissions() const { return m_missing; }
    bool complete() const { return m_complete; }

Q_SIGNALS:
    void objectsFound(const QList<gatehouse::PatternObject> &objects);
    void progress(qint64 scanned, qint64 total);
    void finished(bool cancelled);
    void failed(const QString &message);

private:
    void step();
    void onPage(const QList<QByteArray> &keys);
    void detect(const QList<QByteArray> &keys);
    void finish(bool cancelled);
    void refused(const QString &id, const QString &note, bool incomplete);
    void noteUnreadableKeys();
    QString userName() const;
    RedisClient *client() const { return m_nodes.at(m_node); } // the node being scanned

    QList<RedisClient *> m_nodes;
    qsizetype m_node = 0;
    std::optional<Profile> m_profile; // profile mode: keys matched by name only
    std::optional<Profile> m_hints;   // autodetect mode: an operator's accept/reject
    AutoDetector m_detector;
    QByteArray m_cursor = "0";
    QByteArray m_match = "*";
    int m_count = 1000;
    qint64 m_total = 0;
    qint64 m_scanned = 0;
    qint64 m_serverNowMs = 0;
    bool m_running = false;
    bool m_cancelled = false;
    bool m_firstStep = true;
    bool m_complete = true;
    bool m_typeRefused = false;
    qint64 m_keysRefused = 0; // keys whose TYPE or shape read hit NOPERM on the key
    QStringList m_permissionNotes;
    QStringList m_missing;
    QList<Candidate> m_candidates; // autodetect mode, after finished()
    QList<OtherFamily> m_other;
    bool m_memorySamples = true;                              // MEMORY USAGE allowed (so far)
    QList<PatternObject> m_objects;                           // profile mode, in discovery order
    QHash<QPair<PatternKind, QByteArray>, qsizetype> m_index; // (kind, key) -> m_objects index
    QObject m_context{this};                                  // a child: moves with the discovery
};

} // namespace gatehouse
