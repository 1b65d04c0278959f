// SPDX-License-Identifier: MIT
// States that tell the truth: every object's Status cell says its state in
// words, coloured by its severity, as its pattern judges it (an expired
// legacy lock or a limiter past its limit is never "ok"); durations read as
// people say them; and the tables fit their text at 1280x800 and 1600x1000
// (no header or cell cut or wrapped: QFontMetrics against section sizes).
#include <monitor/attention.h>
#include <objecttablemodel.h>
#include <patterns/limiterdata.h>
#include <patterns/lock/lockdata.h>
#include <patterns/token-family/tokendata.h>
#include <sectionpage.h>
#include <theme.h>

#include <patterns/objecthealth.h>
#include <patterns/patternunit.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QHeaderView>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

using namespace gatehouse;

Q_DECLARE_METATYPE(gatehouse::ObjectState)
Q_DECLARE_METATYPE(gatehouse::Severity)

namespace {

constexpr qint64 Now = 1'700'000'000'000; // server time of the snapshot

ObjectState make(const char *kind, const QByteArray &key)
{
    ObjectState s;
    s.object.edit().kind = PatternKind(kind);
    s.object.edit().key = key;
    s.reading.atMs = Now;
    return s;
}

ObjectState limiter(const QByteArray &key, qint64 inWindow, qint64 limit)
{
    ObjectState s = make("sliding-window", key);
    s.reading.inWindow = inWindow;
    s.reading.limit = limit;
    LimiterData::in(s.reading).windowMs = 60000;
    return s;
}

ObjectState legacyLock(const QByteArray &key, qint64 expiredAgoMs)
{
    ObjectState s = make("legacy-lock", key);
    LockData::in(s.reading).expiresAtMs = Now - expiredAgoMs;
    LockData::in(s.reading).token = QByteArray::number(LockData::of(s.reading).expiresAtMs);
    s.reading.pttlMs = -1; // SETNX locks carry their expiry in the value, not a TTL
    return s;
}

QString sectionOf(const ObjectState &s)
{
    return PatternUnit::of(s.object->kind).section().id;
}

int statusColumn(const ObjectTableModel &model)
{
    for (int c = 0; c < model.columnCount(); ++c) {
        if (model.headerData(c, Qt::Horizontal).toString() == QLatin1String("Status"))
            return c;
    }
    return -1;
}

} // namespace

class tst_States : public QObject
{
    Q_OBJECT

private slots:
    void humanDurations_data()
    {
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<QString>("text");
        QTest::newRow("unknown") << qint64(-1) << QStringLiteral("–");
        QTest::newRow("ms") << qint64(350) << QStringLiteral("350 ms");
        QTest::newRow("seconds, one decimal") << qint64(2500) << QStringLiteral("2.5 s");
        QTest::newRow("seconds, whole") << qint64(30'400) << QStringLiteral("30 s");
        QTest::newRow("minutes") << qint64(558'000) << QStringLiteral("9.3 min");
        QTest::newRow("hours") << qint64((2 * 60 + 5) * 60'000) << QStringLiteral("2 h 5 min");
        QTest::newRow("days") << qint64((3 * 24 + 4) * 3'600'000) << QStringLiteral("3 d 4 h");
    }
    void humanDurations()
    {
        QFETCH(qint64, ms);
        QFETCH(QString, text);
        QCOMPARE(formatMs(ms), text);
    }

    void stateInWordsAndColour_data()
    {
        QTest::addColumn<ObjectState>("state");
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("words");
        QTest::addColumn<Severity>("severity");

        QTest::newRow("limiter ok")
            << limiter("rl:ok", 3, 10) << states::Ok << QStringLiteral("ok") << Severity::Ok;
        QTest::newRow("limiter near") << limiter("rl:near", 8, 10) << states::NearLimit
                                      << QStringLiteral("near limit") << Severity::Warning;
        QTest::newRow("limiter at") << limiter("rl:at", 10, 10) << states::OverLimit
                                    << QStringLiteral("at limit") << Severity::Critical;
        // "75 / 50 · 150 %": a limit lowered under the traffic, never ok.
        QTest::newRow("limiter over") << limiter("sim:throttle:user:1", 75, 50) << states::OverLimit
                                      << QStringLiteral("over limit") << Severity::Critical;
        QTest::newRow("legacy lock expired")
            << legacyLock("sim:lock.legacy:0", 558'000) << states::ExpiredPresent
            << QStringLiteral("expired 9.3 min ago: holder crashed, may be taken over")
            << Severity::Warning;
        ObjectState legacyHeld = legacyLock("sim:lock.legacy:1", -30'000);
        QTest::newRow("legacy lock held")
            << legacyHeld << states::Ok << QStringLiteral("ok") << Severity::Ok;
        ObjectState noTtl = make("lock", "lock:forever");
        LockData::in(noTtl.reading).token = "abc";
        noTtl.reading.pttlMs = -1;
        QTest::newRow("lock without TTL")
            << noTtl << states::Orphaned
            << QStringLiteral("no TTL: held forever if its holder crashed") << Severity::Warning;
        ObjectState queue = make("reliable-queue", "jobs");
        queue.reading.editQueue().inFlight = 5;
        queue.reading.editQueue().stuck = 3;
        QTest::newRow("queue stuck")
            << queue << states::Stuck << QStringLiteral("3 stuck") << Severity::Critical;
        // A library's queue with jobs waiting and none of the library's
        // workers alive: nothing will run them. Not when paused, not when
        // the library keeps no worker record (BullMQ: -1), not for a stream
        // group (its length counts entries already acknowledged), and a
        // stuck job says more.
        const auto waiting = [](const char *kind, qint64 alive) {
            ObjectState s = make(kind, "q:mail");
            s.reading.editQueue().length = 4;
            s.reading.editLibrary().workers = std::max<qint64>(alive, 0);
            s.reading.editLibrary().workersAlive = alive;
            return s;
        };
        QTest::newRow("rq, no worker") << waiting("rq", 0) << QStringLiteral("no-worker")
                                       << QStringLiteral("no worker seen") << Severity::Warning;
        QTest::newRow("sidekiq, no worker")
            << waiting("sidekiq", 0) << QStringLiteral("no-worker")
            << QStringLiteral("no worker seen") << Severity::Warning;
        // Keys that resemble the library's, in no layout it writes: shown
        // read-only, and said so (it read "ok").
        ObjectState unknown = waiting("resque", 0);
        unknown.reading.editLibrary().layoutKnown = false;
        QTest::newRow("resque, unknown layout")
            << unknown << QStringLiteral("unknown-layout")
            << QStringLiteral("unknown layout, read-only") << Severity::Warning;
        QTest::newRow("rq, a worker alive")
            << waiting("rq", 1) << states::Ok << QStringLiteral("ok") << Severity::Ok;
        ObjectState paused = waiting("rq", 0);
        paused.reading.editLibrary().paused = true;
        QTest::newRow("rq paused, no worker")
            << paused << states::Ok << QStringLiteral("ok") << Severity::Ok;
        QTest::newRow("bullmq, no worker record")
            << waiting("bullmq", -1) << states::Ok << QStringLiteral("ok") << Severity::Ok;
        // Active jobs whose locks could not be read (a Cluster refuses SORT
        // ... GET): stalled jobs are not known, never "ok".
        const auto locksUnread = [&waiting](const char *kind, const char *why) {
            ObjectState s = waiting(kind, -1);
            s.reading.editQueue().inFlight = 2;
            s.reading.editQueue().stuckIsLowerBound = true;
            s.reading.message = QString::fromLatin1(why);
            return s;
        };
        QTest::newRow("bullmq, locks unread")
            << locksUnread("bullmq", "Cannot read the active jobs' locks (ERR GET option of "
                                     "SORT denied in Cluster mode.)")
            << QStringLiteral("stalled-unknown") << QStringLiteral("stalled jobs not known")
            << Severity::Warning;
        QTest::newRow("bull, locks unread")
            << locksUnread("bull", "The queue's name holds '*' or \"->\": stalled jobs are not "
                                   "read.")
            << QStringLiteral("stalled-unknown") << QStringLiteral("stalled jobs not known")
            << Severity::Warning;
        ObjectState read = waiting("bullmq", -1);
        read.reading.editQueue().inFlight = 1;
        read.reading.editQueue().items.append(InFlightItem{});
        QTest::newRow("bullmq, locks read")
            << read << states::Ok << QStringLiteral("ok") << Severity::Ok;
        QTest::newRow("stream group, no consumer")
            << waiting("stream-group", 0) << states::Ok << QStringLiteral("ok") << Severity::Ok;
        ObjectState stuckNoWorker = waiting("celery", 0);
        stuckNoWorker.reading.editQueue().inFlight = 1;
        stuckNoWorker.reading.editQueue().stuck = 1;
        QTest::newRow("celery stuck, no worker")
            << stuckNoWorker << states::Stuck << QStringLiteral("1 stuck") << Severity::Critical;
        ObjectState family = make("token-family", "tok:");
        TokenData::in(family.reading).count = 9;
        TokenData::in(family.reading).withoutTtl = 2;
        QTest::newRow("tokens without TTL")
            << family << states::Orphaned << QStringLiteral("2 without TTL") << Severity::Warning;
        ObjectState gone = limiter("rl:gone", 12, 10);
        gone.gone = true;
        QTest::newRow("gone") << gone << states::Gone << QStringLiteral("gone") << Severity::Muted;
        ObjectState goneSince = limiter("rl:gone-since", 12, 10);
        goneSince.gone = true;
        goneSince.goneSinceMs = Now - 90'000; // says since when
        QTest::newRow("gone since")
            << goneSince << states::Gone << QStringLiteral("gone 1.5 min ago") << Severity::Muted;
        ObjectState stale = limiter("rl:stale", 1, 10);
        stale.stale = true;
        stale.staleSinceMs = Now - 12'000;
        QTest::newRow("stale") << stale << states::Stale << QStringLiteral("stale for 12 s")
                               << Severity::Warning;
        ObjectState wrong = make("lock", "lock:wrong");
        wrong.reading.status = Reading::Status::WrongType;
        QTest::newRow("wrong type")
            << wrong << states::Error << QStringLiteral("wrong type") << Severity::Critical;
    }
    void stateInWordsAndColour()
    {
        QFETCH(ObjectState, state);
        QFETCH(QString, id);
        QFETCH(QString, words);
        QFETCH(Severity, severity);

        // The pattern's judgement, and a state it declares.
        const ObjectHealth h = objectHealth(state, Now);
        QCOMPARE(h.id, id);
        QCOMPARE(h.words, words);
        QCOMPARE(h.severity, severity);
        bool declared = false;
        for (const StateInfo &info : declaredStates(state.object->kind))
            declared = declared || info.id == h.id;
        QVERIFY2(declared, qPrintable(h.id + QStringLiteral(" is not in states()")));

        // The Status cell as the console shows it: the words, in the
        // severity's badge colours of the palette in use.
        ObjectTableModel model(sectionOf(state));
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        Snapshot snapshot;
        snapshot.server.timeMs = Now;
        snapshot.objects = {state};
        model.applySnapshot(snapshot);
        const int status = statusColumn(model);
        QVERIFY(status >= 0);
        const QModelIndex cell = model.index(0, status);
        QCOMPARE(cell.data().toString(), words);
        QCOMPARE(cell.data(ObjectTableModel::StateIdRole).toString(), id);
        const theme::Badge badge = theme::badge(severity, QApplication::palette());
        QCOMPARE(cell.data(Qt::ForegroundRole).value<QBrush>().color(), badge.text);
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QBrush>().color(), badge.fill);
        if (id != states::Ok)
            QVERIFY(cell.data().toString() != QLatin1String("ok"));
    }

    // The expired legacy lock's attention sentence says what the Status
    // column says, not "held for at least 8.7 min".
    void attentionAgreesWithState()
    {
        const ObjectState s = legacyLock("sim:lock.legacy:0", 558'000);
        const QString text = PatternUnit::of(s.object->kind).attentionText(s, Now);
        QVERIFY2(text.contains(QLatin1String("expired 9.3 min ago: holder crashed")),
                 qPrintable(text));
    }

    // During an outage the attention line tells the lock as it was at the
    // last reading and says so; it never recomputes "held for" or "expired"
    // against a clock the server no longer answers to.
    void attentionDuringOutageIsTheLastReading()
    {
        ObjectState s = legacyLock("sim:lock.legacy:0", 396'000); // expired 6.6 min ago
        s.stale = true;
        s.staleSinceMs = Now;
        const auto lineOf = [](const ObjectState &state, qint64 nowMs) {
            const QList<AttentionItem> items = rankAttention({state}, nowMs);
            return items.isEmpty() ? QString() : items.first().text;
        };
        const QString text = lineOf(s, Now + 312'000); // 5.2 min later
        QVERIFY2(text.contains(QLatin1String("expired 6.6 min ago")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String(", as last read 5.2 min ago (not known since)")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("held for")), qPrintable(text));

        ObjectState held = make("lock", "lock:api");
        LockData::in(held.reading).token = "abc";
        held.reading.pttlMs = 30'000;
        held.heldSinceMs = Now - 60'000;
        held.stale = true;
        const QString heldText = lineOf(held, Now + 90'000);
        QVERIFY2(heldText.contains(QLatin1String("held for 1.0 min, as last read 1.5 min ago")),
                 qPrintable(heldText));
        // Answering again: the same lock told at the time asked, no suffix.
        held.stale = false;
        const QString liveText = lineOf(held, Now + 90'000);
        QVERIFY2(liveText.contains(QLatin1String("held for 2.5 min")), qPrintable(liveText));
        QVERIFY2(!liveText.contains(QLatin1String("as last read")), qPrintable(liveText));
    }

    // No "0 ms" retry horizon where nobody waits.
    void noZeroRetryHorizon()
    {
        ObjectTableModel model(QStringLiteral("limiter"));
        Snapshot snapshot;
        snapshot.server.timeMs = Now;
        ObjectState s = limiter("rl:idle", 1, 10);
        LimiterData::in(s.reading).retryHorizonMs = 0;
        snapshot.objects = {s};
        model.applySnapshot(snapshot);
        int column = -1;
        for (int c = 0; c < model.columnCount(); ++c) {
            if (model.headerData(c, Qt::Horizontal).toString() == QLatin1String("Retry horizon"))
                column = c;
        }
        QVERIFY(column >= 0);
        QCOMPARE(model.index(0, column).data().toString(), QStringLiteral("none"));
    }

    // Reset was enabled for a Redisson limiter and refused afterwards: it is
    // disabled, saying why, and enabled for a limiter it can reset.
    void resetOnlyWhereItCanRun()
    {
        Snapshot snapshot;
        snapshot.server.timeMs = Now;
        ObjectState redisson = limiter("sim:redisson:0", 9, 10);
        redisson.object.edit().kind = PatternKind("redisson-limiter");
        snapshot.objects = {redisson, limiter("sim:rl:api:0", 3, 10)};
        const Section section = PatternUnit::of(PatternKind("sliding-window")).section();
        SectionPage page(section, false);
        page.resize(1080, 720);
        page.show();
        page.setSnapshot(std::make_shared<const Snapshot>(snapshot));
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        auto *reset = page.findChild<QPushButton *>(QStringLiteral("resetLimiterButton"));
        QVERIFY(reset);
        QVERIFY(!reset->isEnabled()); // nothing selected
        QVERIFY(!reset->toolTip().isEmpty());
        QVERIFY(page.selectKey("sim:redisson:0"));
        QVERIFY(!reset->isEnabled());
        QVERIFY2(reset->toolTip().contains(QLatin1String("read-only")),
                 qPrintable(reset->toolTip()));
        QVERIFY(page.selectKey("sim:rl:api:0"));
        QVERIFY(reset->isEnabled());
        QVERIFY(reset->toolTip().isEmpty());
    }

    // Every section's table at the page size of a 1280x800 and a 1600x1000
    // window: each header (bold, as a sorted header draws) and each cell
    // fits its section; only the key column may elide, and then its
    // tooltip holds the whole key.
    void tablesFitTheirText_data()
    {
        QTest::addColumn<QSize>("window");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
    }
    void tablesFitTheirText()
    {
        QFETCH(QSize, window);
        Snapshot snapshot;
        snapshot.server.timeMs = Now;
        ObjectState busy = limiter("sim:throttle:user:1", 75, 50);
        LimiterData::in(busy.reading).retryHorizonMs = 2'400;
        ObjectState resource = make("resource-consumer", "{sim:res:export}:resource");
        resource.reading.inWindow = 701;
        resource.reading.limit = 1000;
        ObjectState fixed = make("fixed-window", "sim:fixed:api:0");
        fixed.reading.inWindow = 12;
        fixed.reading.limit = 100;
        LimiterData::in(fixed.reading).resetMs = 42'000;
        ObjectState held = make("lock", "sim:lock:report:0");
        LockData::in(held.reading).token = "7f3c2a9e-5b1d-4c6e-9a8f-2d4b6c8e0a1f";
        held.reading.pttlMs = 25'000;
        held.heldSinceMs = Now - 125'000;
        ObjectState queue = make("reliable-queue", "sim:queue:emails");
        queue.reading.editQueue().length = 1234;
        queue.reading.editQueue().inFlight = 37;
        queue.reading.editQueue().stuck = 3;
        queue.reading.editQueue().deadLength = 12;
        queue.reading.editQueue().oldestInFlightAgeMs = 562'800;
        queue.throughputPerS = 118.4;
        ObjectState family = make("token-family", "sim:token:invite:");
        TokenData::in(family.reading).count = 380;
        TokenData::in(family.reading).minTtlMs = 12'000;
        TokenData::in(family.reading).maxTtlMs = 3'540'000;
        snapshot.objects = {busy,
                            limiter("sim:rl:api:0", 8, 10),
                            resource,
                            fixed,
                            legacyLock("sim:lock.legacy:0", 558'000),
                            held,
                            queue,
                            family};

        // The page's share of the window: the side list (about 190 px) and
        // the frames take the rest.
        const QSize page(window.width() - 200, window.height() - 80);
        for (const Section &section : PatternRegistry::instance().sections()) {
            SectionPage sectionPage(section, false);
            sectionPage.resize(page);
            sectionPage.show();
            sectionPage.setSnapshot(std::make_shared<const Snapshot>(snapshot));
            QVERIFY(QTest::qWaitForWindowExposed(&sectionPage));
            QTableView *table = sectionPage.table();
            QHeaderView *header = table->horizontalHeader();
            QCoreApplication::processEvents();
            QFont bold = header->font();
            bold.setBold(true);
            const QFontMetrics headerMetrics(bold);
            const QFontMetrics cellMetrics(table->font());
            const int margin
                = 2
                  * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
            for (int c = 1; c < header->count(); ++c) {
                const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
                // A column no listed object has is hidden, not an empty band
                // (Library and Counts when no library lock is listed); an
                // empty table shows every header.
                bool used = table->model()->rowCount() == 0;
                for (int row = 0; row < table->model()->rowCount(); ++row)
                    used = used || !table->model()->index(row, c).data().toString().isEmpty();
                QVERIFY2(table->isColumnHidden(c) == !used,
                         qPrintable(QStringLiteral("%1: column \"%2\" %3")
                                        .arg(section.id, title,
                                             used ? QStringLiteral("hidden with text in it")
                                                  : QStringLiteral("shown, empty on every row"))));
                if (!used)
                    continue;
                // The header's text and its sort arrow.
                const int arrow = table->style()->pixelMetric(QStyle::PM_HeaderMarkSize);
                QVERIFY2(header->sectionSize(c) >= headerMetrics.horizontalAdvance(title) + arrow,
                         qPrintable(QStringLiteral("%1: header \"%2\" clipped (%3 px)")
                                        .arg(section.id, title)
                                        .arg(header->sectionSize(c))));
                for (int row = 0; row < table->model()->rowCount(); ++row) {
                    const QModelIndex cell = table->model()->index(row, c);
                    const QString text = cell.data().toString();
                    // Fits, or is elided with the whole text in its tooltip.
                    const bool fits
                        = header->sectionSize(c) >= cellMetrics.horizontalAdvance(text) + margin;
                    // A state is read whole, never elided ("expired 1.0 mi… be
                    // taken over" hid the cause).
                    if (title == QLatin1String("Status"))
                        QVERIFY2(fits, qPrintable(QStringLiteral("%1: state \"%2\" cut (%3 px)")
                                                      .arg(section.id, text)
                                                      .arg(header->sectionSize(c))));
                    QVERIFY2(fits || cell.data(Qt::ToolTipRole).toString().contains(text),
                             qPrintable(QStringLiteral("%1: \"%2\" under \"%3\" cut (%4 px)")
                                            .arg(section.id, text, title)
                                            .arg(header->sectionSize(c))));
                    // One line per row: nothing wraps.
                    QCOMPARE(table->rowHeight(row), table->verticalHeader()->defaultSectionSize());
                }
            }
            // The key column shows every key whole, or keeps room for a key
            // (at least 160 px), elided with a tooltip.
            int widestKey = 0;
            for (int row = 0; row < table->model()->rowCount(); ++row)
                widestKey = std::max(widestKey, cellMetrics.horizontalAdvance(
                                                    table->model()->index(row, 0).data().toString())
                                                    + margin);
            QStringList sizes;
            for (int c = 0; c < header->count(); ++c)
                sizes << QStringLiteral("%1=%2")
                             .arg(table->model()->headerData(c, Qt::Horizontal).toString())
                             .arg(header->sectionSize(c));
            QVERIFY2(header->sectionSize(0) >= std::min(160, widestKey),
                     qPrintable(QStringLiteral("%1: key column %2 px (%3)")
                                    .arg(section.id)
                                    .arg(header->sectionSize(0))
                                    .arg(sizes.join(QStringLiteral(", ")))));
            for (int row = 0; row < table->model()->rowCount(); ++row) {
                const QModelIndex key = table->model()->index(row, 0);
                QCOMPARE(key.data(Qt::ToolTipRole).toString(), key.data().toString());
            }
            QVERIFY2(!table->wordWrap(), "cells must not wrap");
            // Sorted by key, ascending, until the operator picks otherwise.
            QCOMPARE(header->sortIndicatorSection(), 0);
            QCOMPARE(header->sortIndicatorOrder(), Qt::AscendingOrder);
            for (int row = 1; row < table->model()->rowCount(); ++row)
                QVERIFY(table->model()->index(row - 1, 0).data().toString()
                        <= table->model()->index(row, 0).data().toString());
        }
    }
};

QTEST_MAIN(tst_States)
#include "tst_states.moc"
