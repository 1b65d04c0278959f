// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QString>

#include <optional>

namespace gatehouse {

// What the window says about a new world (ServerStatus::World): a restart
// ("Server restarted at 14:02:17: 151 keys → 0"), a master switch or a flush
// ("Keyspace emptied or swapped: 30 keys → 0"), first
// while every object is being read again, then once the readings are whole.
// One notice per world, shown until the operator dismisses it; a later world
// replaces it. The main window shows it in its banner.
class WorldNotice
{
public:
    struct Text
    {
        QString title;
        QString message;
        QString advice;
    };

    // Takes the latest snapshot's world; true when the notice changed.
    bool update(const ServerStatus &server);
    // The notice to show now; none before any new world or once dismissed.
    std::optional<Text> current() const;
    void dismiss() { m_dismissed = m_generation; }
    // A connection column's words while every object is read again
    // ("Reading again after a restart").
    static QString rereadingWords(const ServerStatus::World &world);

private:
    int m_generation = 0;
    int m_dismissed = 0;
    bool m_whole = false;
    ServerStatus::World m_world;
    QString m_persistence; // the master's persistence sentence, when known
};

} // namespace gatehouse
