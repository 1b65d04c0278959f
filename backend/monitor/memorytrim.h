// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <memory>

namespace gatehouse {

// When the monitor gives memory back to the OS (glibc's malloc_trim), one
// rule. A large discovery (its garbage, and the unread states its first
// readings replace) and, refreshing adaptively, a tick reading at least
// AfterObjects objects (a full pass; the ticks of the behaviour watch after a
// discovery) leave several hundred bytes per object in the allocator's free
// lists, interleaved with what lives on. They go back once every object was
// read and a state replaced was let go by everyone (the console swapped in
// the snapshot with the new ones): checked when a full tick ends and every
// CheckMs after it, Checks times. Once per arming, on the monitor's thread
// (1-4 ms at 30,000 objects).
class MemoryTrim
{
public:
    // Passes replacing at least this many states (and discoveries handing
    // over as many objects) are followed by one trim.
    static constexpr qsizetype AfterObjects = 1000;
    static constexpr int CheckMs = 100;
    static constexpr int Checks = 30;
    // A large tick arms a trim at most this often (a thousand objects hot
    // for good would otherwise trim every tick), except the ticks of the
    // behaviour watch after a discovery (freeTicks), which re-read every
    // object.
    static constexpr qint64 TickEveryMs = 60000;

    // Checks are scheduled on context's thread, for as long as it lives.
    explicit MemoryTrim(QObject *context);

    // A discovery handed over objects; unread: the state of one not read
    // yet (empty: every one was). The next freeTicks ticks may each arm a
    // trim whatever the time since the last (the behaviour watch's).
    void armAfterDiscovery(qsizetype objects, std::weak_ptr<const void> unread, int freeTicks);
    // A pass read objects, replacing replaced among them; fewAfter: the
    // ticks after it read few (events live or budgeted polling), so the
    // memory the old states held would stay idle in the allocator.
    void armForPass(qsizetype objects, bool fewAfter, std::weak_ptr<const void> replaced);
    // A full tick ended: trims once allRead() and the state watched is
    // gone, or after Checks checks CheckMs apart (a view may keep an older
    // state for good).
    void check(std::function<bool()> allRead) { checkNow(std::move(allRead), Checks); }

    bool pending() const { return m_pending; }
    int trims() const { return m_trims; } // since construction

private:
    void arm(std::weak_ptr<const void> replaced);
    void checkNow(std::function<bool()> allRead, int checksLeft);

    QObject *m_context;
    QElapsedTimer m_lastTrim;          // since the last trim; invalid: none yet
    std::weak_ptr<const void> m_watch; // a state replaced; empty: none to wait for
    int m_freeTicks = 0;
    int m_trims = 0;
    bool m_pending = false;
    bool m_checkScheduled = false;
};

} // namespace gatehouse
