// SPDX-License-Identifier: MIT
#pragma once

#include "patternobject.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <optional>

namespace gatehouse {

// What the monitor saw an autodetected instance's keys do over its first
// ticks of watching (README, "Autodetection": behaviour). Each pattern notes
// what confirms it and what argues against it
// (PatternUnit::observeBehaviour); verdict() weighs the notes into one piece
// of evidence. Times are server ms.
struct BehaviourTrack
{
    int steps = 0;         // pairs of consecutive readings compared
    int confirms = 0;      // observations that confirm the pattern
    int against = 0;       // observations that argue against it, counted by weight
    QString confirmReason; // the latest of each, as a sentence
    QString againstReason;
    // Keyspace events since the last reading (when they are live): one of
    // the instance's keys was deleted (DEL, UNLINK, a script's DEL) or
    // expired; or its value written (SET, INCR, APPEND, SETRANGE: not an
    // EXPIRE, which leaves the value).
    bool eventsLive = false;
    bool deletedSinceRead = false;
    bool expiredSinceRead = false;
    bool writtenSinceRead = false;
    // A pattern's own notes across readings: a lock deleted before its TTL
    // ran out (re-creation confirms it); members' expiries (token
    // families), bounded by the page the pattern reads.
    bool deleted = false;
    // A lock's new token with events live and no deletion heard by that
    // reading: judged at the next one (the deletion's event comes on another
    // connection and may arrive after the reading's reply).
    bool overwriteUnheard = false;
    // A lock's last pair of readings ended on a value just written (a new
    // key, a new token): a "set" event heard next may be that write's.
    bool valueJustWritten = false;
    QHash<QByteArray, qint64> expiries;

    // An observation for the pattern, or against it: certain (a keyspace
    // event showed it) counts as CertainWeight observations.
    void confirm(const QString &reason)
    {
        ++confirms;
        confirmReason = reason;
    }
    void argue(const QString &reason, bool certain = false)
    {
        against += certain ? CertainWeight : 1;
        againstReason = reason;
    }

    static constexpr int CertainWeight = 3;
    // Against: this many observations (a polled overwrite may be a release
    // and a new holder between two readings; three in a row are not), and
    // more than twice the confirmations.
    static constexpr int MinAgainst = 3;
    // The weights of the verdict: a confirmation lifts a candidate of one
    // piece of structural evidence over AutoDetector::Threshold; a
    // contradiction takes a lock's token and name (3 + 2) under it.
    static constexpr int ConfirmWeight = 2;
    static constexpr int AgainstWeight = -4;

    // The evidence the notes add up to, if any; title names the pattern
    // ("lock") in the sentence.
    std::optional<Evidence> verdict(const QString &title) const;
};

// Evidence without its Behaviour pieces, plus verdict (if any).
QList<Evidence> withBehaviour(const QList<Evidence> &evidence,
                              const std::optional<Evidence> &verdict);

} // namespace gatehouse
