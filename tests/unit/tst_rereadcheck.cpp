// SPDX-License-Identifier: MIT
// An object read again under budgeted polling, against what its last reading
// projects to the new reading's time: whether something wrote it (it is then
// read every tick for a while) and whether the new reading only confirms the
// last one (the monitor then leaves it out of what it tells the history: a
// re-read wrongly taken as confirming would be a change the history never
// records).
#include <monitor/rereadcheck.h>

#include <QTest>

#include <cmath>
#include <limits>

using namespace gatehouse;

namespace {

constexpr double Slack = 100;
constexpr qint64 At = 10000;

// Figures over a few fields of a reading, each moving as a real pattern's do.
Figure ttl() // counts down to 0; "no TTL" (<= 0) stays as it is
{
    return {QStringLiteral("ttl"), QStringLiteral("TTL"), true, [](const Reading &r, qint64 at) {
                return double(r.countdownAt(r.pttlMs, at));
            }};
}
Figure count() // flat
{
    return {QStringLiteral("count"), QStringLiteral("Count"), false, [](const Reading &r, qint64) {
                return double(r.inWindow);
            }};
}
Figure knownTtl() // unknown (NaN) without a TTL
{
    return {QStringLiteral("knownTtl"), QStringLiteral("TTL"), true,
            [](const Reading &r, qint64 at) {
                return r.pttlMs < 0 ? std::numeric_limits<double>::quiet_NaN()
                                    : double(r.countdownAt(r.pttlMs, at));
            }};
}
Figure countdownOrAge() // from inWindow: down with a limit, up without
{
    return {QStringLiteral("clock"), QStringLiteral("Clock"), true,
            [](const Reading &r, qint64 at) {
                return double(r.limit ? r.countdownAt(r.inWindow, at) : r.ageAt(r.inWindow, at));
            }};
}
Figure laterStep() // 0 for a minute, then inWindow: no motion shows it sooner
{
    return {QStringLiteral("later"), QStringLiteral("Later"), false,
            [](const Reading &r, qint64 at) {
                return at - r.atMs > 60000 ? double(r.inWindow) : 0.0;
            }};
}

Reading reading(qint64 pttlMs, qint64 inWindow = 3)
{
    Reading r;
    r.atMs = At;
    r.pttlMs = pttlMs;
    r.inWindow = inWindow;
    return r;
}

} // namespace

class tst_RereadCheck : public QObject
{
    Q_OBJECT

private slots:
    // The same reading again, or a TTL a few ms off its countdown: nothing
    // wrote it, and it confirms the last one.
    void sameOrWithinSlackConfirms()
    {
        const QList<Figure> figures{ttl(), count()};
        QVERIFY(!rereadWritten(figures, reading(5000), reading(5000), Slack));
        QVERIFY(rereadConfirms(figures, reading(5000), reading(5000), Slack));
        QVERIFY(!rereadWritten(figures, reading(5000), reading(5040), Slack));
        QVERIFY(rereadConfirms(figures, reading(5000), reading(5040), Slack));
        QVERIFY(rereadConfirms(figures, reading(5000), reading(4900), Slack));
    }

    // Beyond the slack, another count or another status: written, and not
    // confirming.
    void writtenNeverConfirms()
    {
        const QList<Figure> figures{ttl(), count()};
        QVERIFY(rereadWritten(figures, reading(5000), reading(5200), Slack));
        QVERIFY(!rereadConfirms(figures, reading(5000), reading(5200), Slack));
        QVERIFY(rereadWritten(figures, reading(5000, 3), reading(5000, 4), Slack));
        QVERIFY(!rereadConfirms(figures, reading(5000, 3), reading(5000, 4), Slack));
        Reading missing = reading(5000);
        missing.status = Reading::Status::Missing;
        QVERIFY(rereadWritten(figures, reading(5000), missing, Slack));
        QVERIFY(!rereadConfirms(figures, reading(5000), missing, Slack));
    }

    // Near now but moving otherwise: not written (within the slack), and
    // not confirming, since a history of motions would record it.
    void sameValueOtherMotionDoesNotConfirm()
    {
        // A countdown 50 ms from its end, read as a flat 0 (no TTL left).
        QVERIFY(!rereadWritten({ttl()}, reading(50), reading(0), Slack));
        QVERIFY(!rereadConfirms({ttl()}, reading(50), reading(0), Slack));
        // The same value counting down, then growing.
        Reading down = reading(-1, 5000);
        down.limit = 1;
        const Reading up = reading(-1, 5000);
        QVERIFY(!rereadWritten({countdownOrAge()}, down, up, Slack));
        QVERIFY(!rereadConfirms({countdownOrAge()}, down, up, Slack));
        QVERIFY(rereadConfirms({countdownOrAge()}, down, down, Slack));
        // The same now and a ms on, another value later.
        QVERIFY(!rereadWritten({laterStep()}, reading(-1, 3), reading(-1, 4), Slack));
        QVERIFY(!rereadConfirms({laterStep()}, reading(-1, 3), reading(-1, 4), Slack));
        QVERIFY(rereadConfirms({laterStep()}, reading(-1, 3), reading(-1, 3), Slack));
    }

    // Unknown in both: the same. Unknown in one only: not counted as a
    // write (as budgeted polling always had it), but not a confirmation.
    void unknownFigures()
    {
        QVERIFY(!rereadWritten({knownTtl()}, reading(-1), reading(-1), Slack));
        QVERIFY(rereadConfirms({knownTtl()}, reading(-1), reading(-1), Slack));
        QVERIFY(!rereadWritten({knownTtl()}, reading(-1), reading(5000), Slack));
        QVERIFY(!rereadConfirms({knownTtl()}, reading(-1), reading(5000), Slack));
        QVERIFY(!rereadConfirms({knownTtl()}, reading(5000), reading(-1), Slack));
    }
};

QTEST_GUILESS_MAIN(tst_RereadCheck)
#include "tst_rereadcheck.moc"
