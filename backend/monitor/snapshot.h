// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternobject.h>
#include <patterns/reading.h>
#include <redis/keyjson.h> // keyToJson: snapshot users get it from here too

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QStringList>

#include <memory>

namespace gatehouse {

struct ServerStatus
{
    QString address;
    QString version;          // empty when INFO is not permitted
    QString role;             // "master", "slave"; empty when unknown
    qint64 timeMs = 0;        // the server's clock at the last reading
    qint64 clockOffsetMs = 0; // server clock - local clock
    bool eventsLive = false;  // keyspace events subscribed; otherwise polling
    qint64 intervalMs = 1000;
    // Local ms since the last reply to a probe arrived; -1 before the first.
    // Grows while the server is stopped, asleep or unreachable.
    qint64 lastReadingAgeMs = -1;
    QStringList notes; // what is unavailable, and why
    // False when keys exist that this Redis user may not list or read (the
    // objects are then only what could be read); permissions names what is
    // missing: "scan", "type", "keys", "evalsha", "eval" (Discovery).
    bool complete = true;
    QStringList permissions;
};

struct ObjectState
{
    PatternObject object;
    Reading reading;
    qint64 firstSeenMs = 0;     // server time Gatehouse first saw the instance
    qint64 heldSinceMs = -1;    // locks: first seen with the current token
    bool gone = false;          // its keys disappeared (expired, deleted)
    double throughputPerS = -1; // queues: jobs finished per second; -1 unknown (no events)
    // The reading could not be refreshed for two ticks (server stopped,
    // asleep, unreachable); it is the last one that arrived.
    bool stale = false;
    qint64 staleSinceMs = -1; // server time of that last reading; -1 when not stale
};

// The instances of a snapshot. Each ObjectState is shared, never changed
// once published: a new snapshot shares every unchanged state with the last
// one, so publishing costs a pointer copy per object, not a deep copy.
// Iterates and indexes as const ObjectState &.
class ObjectList
{
public:
    using Ptr = std::shared_ptr<const ObjectState>;

    class const_iterator
    {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = ObjectState;
        using difference_type = qsizetype;
        using pointer = const ObjectState *;
        using reference = const ObjectState &;
        explicit const_iterator(QList<Ptr>::const_iterator it)
            : m_it(it)
        {}
        reference operator*() const { return **m_it; }
        pointer operator->() const { return m_it->get(); }
        const_iterator &operator++()
        {
            ++m_it;
            return *this;
        }
        bool operator!=(const const_iterator &o) const { return m_it != o.m_it; }
        bool operator==(const const_iterator &o) const { return m_it == o.m_it; }

    private:
        QList<Ptr>::const_iterator m_it;
    };

    ObjectList() = default;
    ObjectList(std::initializer_list<ObjectState> states)
    {
        for (const ObjectState &s : states)
            append(s);
    }

    qsizetype size() const { return m_items.size(); }
    bool isEmpty() const { return m_items.isEmpty(); }
    const ObjectState &at(qsizetype i) const { return *m_items.at(i); }
    const ObjectState &first() const { return *m_items.first(); }
    const ObjectState &last() const { return *m_items.last(); }
    const Ptr &ptr(qsizetype i) const { return m_items.at(i); }
    const_iterator begin() const { return const_iterator(m_items.cbegin()); }
    const_iterator end() const { return const_iterator(m_items.cend()); }
    void reserve(qsizetype n) { m_items.reserve(n); }
    void append(const ObjectState &state) { m_items.append(std::make_shared<ObjectState>(state)); }
    void append(Ptr state) { m_items.append(std::move(state)); }

private:
    QList<Ptr> m_items;
};

// One consistent reading of everything found: a value, shared implicitly;
// the monitor makes a new one per tick and never changes one it gave out.
// With keyspace events live a tick re-reads only what may have changed, so
// each reading is as of its own atMs: reading.at(server.timeMs) gives its
// figures at the snapshot's time, exact (PatternUnit::validUntilMs).
struct Snapshot
{
    quint64 sequence = 0;
    ServerStatus server;
    QString profile; // the profile's name, or "autodetected"
    bool discovering = false;
    qint64 scanned = 0; // keys scanned so far / DBSIZE
    qint64 total = 0;
    ObjectList objects;

    // The snapshot --json contract (README, "snapshot --json").
    QJsonObject toJson() const;
};

} // namespace gatehouse

Q_DECLARE_METATYPE(gatehouse::Snapshot)
