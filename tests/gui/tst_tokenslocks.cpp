// SPDX-License-Identifier: MIT
// The Tokens page and the object pages' shared parts against a real
// redis-server, offscreen: a token family expands into its live tokens (masked
// keys, TTL, used counts, payload sizes), two selected tokens are revoked
// through one confirmation that says how many match now (exactly those two
// deleted, both audited); a token family's flow from earlier runs; charts that
// fold; a batch requeue's confirmation names how many jobs are stuck now. The
// Locks page's own panels are in tst_lockpanels.
#include <actions/actionengine.h>
#include <chartpanel.h>
#include <history/historystore.h>
#include <historyrangebar.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <panels/lock/locktimelinepanel.h>
#include <panels/token-family/tokenlistpanel.h>
#include <patterns/lock/lockdata.h>
#include <redis/redisclient.h>
#include <sectionpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <climits>

#include <qcustomplot.h>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

// Answers the next confirmation (Run or Cancel) once it is up, keeping what
// it said (its text and the informative text, tags and all).
void answerConfirmation(bool accept, QString *said, QObject *owner)
{
    auto *timer = new QTimer(owner);
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, accept, said] {
        QWidget *modal = QApplication::activeModalWidget();
        auto *box = qobject_cast<QMessageBox *>(modal);
        if (auto *inputs = qobject_cast<QDialog *>(modal); inputs && !box) {
            inputs->accept(); // an action's inputs: none are typed here
            return;
        }
        if (!box)
            return;
        timer->stop();
        *said = box->text() + QLatin1Char('\n') + box->informativeText();
        box->button(accept ? QMessageBox::Ok : QMessageBox::Cancel)->click();
    });
    timer->start();
}

struct Console : gatehouse::test::TestConsole
{
    Console(const RedisServer &server, const QString &auditPath,
            const QString &historyFile = QString())
        // New tokens are found by the next scan: a rescan every second.
        : TestConsole(server, auditPath, [&] {
            Options o;
            o.historyFile = historyFile;
            o.rescanMs = 1000;
            o.size = QSize(1400, 900);
            return o;
        }())
    {}
};

QByteArray secret(int i)
{
    // Random-looking, as a generator would make them (the family's members).
    return QByteArray("Zq8") + QByteArray::number(i) + "xT4mLp9Rw2Kd7Vb3Nc6Hj1Yf5Gs0";
}

} // namespace

class tst_TokensLocks : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_redis;
    QTemporaryDir m_dir;

    QString audit() const { return m_dir.filePath(QStringLiteral("audit.jsonl")); }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_redis = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_redis);
    }

    void cleanupTestCase()
    {
        m_redis.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void init() { QCOMPARE(call(*m_redis, {"FLUSHALL"}).bytes(), QByteArray("OK")); }

    void tokenFamilyExpandsAndRevokesASelection()
    {
        // Five counted tokens (hashes with a use counter) and three plain ones.
        for (int i = 0; i < 5; ++i) {
            const QByteArray key = "sim:user_token:" + secret(i);
            QCOMPARE(call(*m_redis, {"HSET", key, "used_by", QByteArray::number(i * 2), "user",
                                     QByteArray::number(40 + i)})
                         .toInteger(),
                     2);
            QCOMPARE(call(*m_redis, {"EXPIRE", key, "600"}).toInteger(), 1);
        }
        const QByteArray payload = R"({"user":7,"scope":"login"})";
        for (int i = 0; i < 3; ++i)
            QCOMPARE(call(*m_redis, {"SET", "sim:code:" + secret(i), payload, "EX", "600"}).bytes(),
                     QByteArray("OK"));

        Console c(m_server, audit());
        const QString section = QStringLiteral("token");
        SectionPage *page = c.window->sectionPage(section);
        QVERIFY(page);
        auto *panel = page->findChild<TokenListPanel *>();
        QVERIFY(panel);
        auto *list = panel->findChild<QTableWidget *>(QStringLiteral("tokenList"));
        auto *range = panel->findChild<QLabel *>(QStringLiteral("tokenListRange"));
        QVERIFY(list && range);

        // The counted family: its five tokens, masked, with their use counts.
        QVERIFY(c.select(section, "sim:user_token:"));
        QTRY_COMPARE_WITH_TIMEOUT(list->rowCount(), 5, 10000);
        QVERIFY(panel->isVisible());
        QVERIFY2(range->text().contains(QLatin1String("5 live tokens")), qPrintable(range->text()));
        for (int i = 0; i < 5; ++i) {
            const QByteArray key = "sim:user_token:" + secret(i);
            QCOMPARE(panel->shownKeys().at(i), key); // in key order
            QCOMPARE(list->item(i, 0)->text(), QStringLiteral("sim:user_token:Zq8%1…").arg(i));
            QVERIFY(!list->item(i, 0)->text().contains(QString::fromLatin1(secret(i))));
            QCOMPARE(list->item(i, 2)->text(), QString::number(i * 2));
            QCOMPARE(list->item(i, 3)->text(), QStringLiteral("2 fields"));
            QVERIFY2(list->item(i, 1)->text().contains(QLatin1String("min")),
                     qPrintable(list->item(i, 1)->text()));
        }

        // The plain family: three tokens, each with its payload's size.
        QVERIFY(c.select(section, "sim:code:"));
        QTRY_COMPARE_WITH_TIMEOUT(list->rowCount(), 3, 10000);
        QTRY_VERIFY(panel->shownKeys().value(0).startsWith("sim:code:"));
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(list->item(i, 2)->text(), QStringLiteral("–"));
            QCOMPARE(list->item(i, 3)->text(), QStringLiteral("%1 bytes").arg(payload.size()));
        }

        // Two of them chosen and revoked: one confirmation, which says how
        // many of them still exist now.
        auto *revoke
            = panel->findChild<QPushButton *>(QStringLiteral("revokeSelectedTokensButton"));
        QVERIFY(revoke);
        QVERIFY(!revoke->isEnabled()); // nothing chosen yet
        list->setSelectionMode(QAbstractItemView::MultiSelection);
        list->selectRow(0);
        list->selectRow(2);
        list->setSelectionMode(QAbstractItemView::ExtendedSelection);
        QTRY_VERIFY(revoke->isEnabled());
        QString said;
        QString outcome;
        connect(c.window.get(), &MainWindow::actionFinished, this,
                [&](const QString &m) { outcome = m; });
        QObject owner;
        answerConfirmation(true, &said, &owner);
        revoke->click();
        QTRY_VERIFY_WITH_TIMEOUT(!outcome.isEmpty(), 10000);
        QVERIFY2(said.contains(QLatin1String("2 of these 2 match now")), qPrintable(said));
        QVERIFY2(said.contains(QLatin1String("2 tokens")), qPrintable(said));
        QVERIFY2(outcome.contains(QLatin1String("2 of 2 tokens done")), qPrintable(outcome));
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:code:" + secret(0)}).toInteger(), 0);
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:code:" + secret(1)}).toInteger(), 1);
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:code:" + secret(2)}).toInteger(), 0);
        QCOMPARE(call(*m_redis, {"EXISTS", "sim:user_token:" + secret(0)}).toInteger(), 1);

        // Both in the audit log, each with its own key, its secret (the code)
        // cut to its first four bytes.
        QFile log(audit());
        QVERIFY(log.open(QIODevice::ReadOnly));
        QList<QByteArray> revoked;
        for (const QByteArray &line : log.readAll().split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.value(QLatin1String("action")).toString() == QLatin1String("token.revoke")) {
                QCOMPARE(o.value(QLatin1String("outcome")).toString(), QStringLiteral("done"));
                revoked
                    << o.value(QLatin1String("keys")).toVariant().toStringList().value(0).toUtf8();
            }
        }
        QCOMPARE(revoked, (QList<QByteArray>{"sim:code:" + secret(0).left(4) + "...",
                                             "sim:code:" + secret(2).left(4) + "..."}));
        log.seek(0);
        QVERIFY(!log.readAll().contains(secret(0)));
        // The list is read again after the action: the one left.
        QTRY_COMPARE_WITH_TIMEOUT(panel->shownKeys(), (QList<QByteArray>{"sim:code:" + secret(1)}),
                                  10000);

        // What came and went, per reading: the two revoked, then one issued.
        QCOMPARE(call(*m_redis, {"SET", "sim:code:" + secret(7), payload, "EX", "600"}).bytes(),
                 QByteArray("OK"));
        const auto total = [&](bool issued) {
            qint64 n = 0;
            for (const TokenListPanel::Flow &f : panel->flow("sim:code:"))
                n += issued ? f.issued : f.gone;
            return n;
        };
        QTRY_COMPARE_WITH_TIMEOUT(total(false), qint64(2), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(total(true), qint64(1), 10000);
    }

    // The issued/consumed chart of a token family: a first run records what
    // came and went in the history file; a second run's range bar (last
    // hour) reads it back, from before that run started.
    void tokenFlowReadsEarlierRuns()
    {
        const QString history = m_dir.filePath(QStringLiteral("tokenflow.sqlite"));
        const QByteArray payload = R"({"user":7})";
        QCOMPARE(call(*m_redis, {"SET", "sim:code:" + secret(0), payload, "EX", "600"}).bytes(),
                 QByteArray("OK"));
        {
            Console c(m_server, audit(), history);
            auto *panel
                = c.window->sectionPage(QStringLiteral("token"))->findChild<TokenListPanel *>();
            QVERIFY(panel);
            QVERIFY(c.select(QStringLiteral("token"), "sim:code:"));
            QTest::qWait(600); // a few readings: the family's baseline
            // Three issued, one used (deleted), within one bucket if it can.
            const auto total = [&](bool issued) {
                qint64 n = 0;
                for (const TokenListPanel::Flow &f : panel->flow("sim:code:"))
                    n += issued ? f.issued : f.gone;
                return n;
            };
            for (int i = 1; i <= 3; ++i)
                QCOMPARE(
                    call(*m_redis, {"SET", "sim:code:" + secret(i), payload, "EX", "600"}).bytes(),
                    QByteArray("OK"));
            QTRY_COMPARE_WITH_TIMEOUT(total(true), qint64(3), 10000);
            QCOMPARE(call(*m_redis, {"DEL", "sim:code:" + secret(1)}).toInteger(), 1);
            QTRY_COMPARE_WITH_TIMEOUT(total(false), qint64(1), 10000);
            // A change in a later bucket writes the earlier ones to the file.
            QTest::qWait(int(TokenListPanel::BucketMs) + 500);
            QCOMPARE(call(*m_redis, {"SET", "sim:code:" + secret(4), payload, "EX", "600"}).bytes(),
                     QByteArray("OK"));
            QTRY_COMPARE_WITH_TIMEOUT(total(true), qint64(4), 10000);
            // Live: the monitor's own readings, seconds back from now.
            auto *note = panel->findChild<QLabel *>(QStringLiteral("tokenFlowNote"));
            QVERIFY(note);
            QVERIFY2(note->text().contains(QLatin1String("since the console started")),
                     qPrintable(note->text()));
        } // the window closes: the history file has everything written

        Console c(m_server, audit(), history);
        auto *panel = c.window->sectionPage(QStringLiteral("token"))->findChild<TokenListPanel *>();
        QVERIFY(c.select(QStringLiteral("token"), "sim:code:"));
        QVERIFY(panel->rangeBar()->isEnabled());
        panel->rangeBar()->setMode(HistoryRangeBar::Mode::LastHour);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isReadingHistory() && !panel->historyFlow().isEmpty(),
                                 10000);
        qint64 issued = 0, gone = 0;
        for (const TokenListPanel::Flow &f : panel->historyFlow()) {
            issued += f.issued;
            gone += f.gone;
            QCOMPARE(f.atMs % TokenListPanel::BucketMs, qint64(0));
        }
        // The first run's three issued and one used (the fourth token's
        // bucket was still being summed when it closed).
        QVERIFY2(issued >= 3, qPrintable(QString::number(issued)));
        QCOMPARE(gone, qint64(1));
        auto *note = panel->findChild<QLabel *>(QStringLiteral("tokenFlowNote"));
        QTRY_VERIFY2(note->text().contains(QLatin1String("From the history file")),
                     qPrintable(note->text()));
        auto *plot = panel->findChild<QCustomPlot *>(QStringLiteral("tokenFlowPlot"));
        QVERIFY(plot);
        QVERIFY(plot->graph(0)->dataCount() >= 1);
        // Back to live: the monitor's readings again.
        panel->rangeBar()->setMode(HistoryRangeBar::Mode::Live);
        QTRY_VERIFY(note->text().contains(QLatin1String("since the console started")));
        if (const QString dir = qEnvironmentVariable("GATEHOUSE_SHOTS"); !dir.isEmpty()) {
            panel->rangeBar()->setMode(HistoryRangeBar::Mode::LastHour);
            QTest::qWait(500);
            c.window->grab().save(dir + QStringLiteral("/tokens-flow-history.png"));
        }
    }

    // The issued/consumed chart at the smallest size the screenshots take
    // (1280x800): at least 160 px of plot, and its range bar's buttons side
    // by side at their own widths, not spread over the pane.
    void tokenFlowPlotIsReadableAt1280x800()
    {
        for (int i = 0; i < 9; ++i)
            QCOMPARE(call(*m_redis, {"SET", "sim:code:" + secret(i), "{}", "EX", "600"}).bytes(),
                     QByteArray("OK"));
        gatehouse::test::TestConsole::Options o;
        o.size = QSize(1280, 800);
        gatehouse::test::TestConsole c(m_server, audit(), o);
        auto *panel = c.window->sectionPage(QStringLiteral("token"))->findChild<TokenListPanel *>();
        QVERIFY(panel);
        QVERIFY(c.select(QStringLiteral("token"), "sim:code:"));
        QTRY_VERIFY(panel->isVisible() && !panel->isLoading());
        QCOMPARE(c.window->size(), QSize(1280, 800));
        auto *plot = panel->findChild<QCustomPlot *>(QStringLiteral("tokenFlowPlot"));
        QVERIFY(plot);
        QTest::qWait(600); // the page's layout settles, a reading is drawn
        plot->replot();    // lays the plot out at its size now
        QVERIFY2(plot->axisRect()->height() >= 160,
                 qPrintable(QStringLiteral("%1 px of plot (the plot widget %2 px high)")
                                .arg(plot->axisRect()->height())
                                .arg(plot->height())));
        // The buttons together: from the first's left to the last's right no
        // more than their widths and the spacing between them.
        const QList<QToolButton *> buttons
            = panel->rangeBar()->findChildren<QToolButton *>(QString(), Qt::FindDirectChildrenOnly);
        QCOMPARE(buttons.size(), 5);
        int left = INT_MAX, right = 0, widths = 0;
        for (const QToolButton *b : buttons) {
            QVERIFY(b->isVisible());
            left = std::min(left, b->geometry().left());
            right = std::max(right, b->geometry().right());
            widths += b->width();
            QVERIFY2(b->width() <= b->sizeHint().width() + 2,
                     qPrintable(QStringLiteral("%1: %2 px wide, needs %3")
                                    .arg(b->text())
                                    .arg(b->width())
                                    .arg(b->sizeHint().width())));
        }
        QVERIFY2(right - left + 1 <= widths + 4 * 2 + 4,
                 qPrintable(QStringLiteral("the range buttons spread over %1 px for %2 px of "
                                           "buttons")
                                .arg(right - left + 1)
                                .arg(widths)));
        // The plot keeps the pane's width (it is not squeezed beside the list).
        QVERIFY2(plot->axisRect()->width() >= 240,
                 qPrintable(QString::number(plot->axisRect()->width())));
        // The families' table leaves no empty band under its rows (issue 19):
        // at most one empty row's worth, the rest is the panes'.
        QTableView *view = c.window->table(QStringLiteral("token"));
        const int rowHeight = view->verticalHeader()->defaultSectionSize();
        const int needed
            = view->horizontalHeader()->height()
              + std::max(view->model()->rowCount(), SectionPage::MinTableRows) * rowHeight
              + 2 * view->frameWidth();
        QVERIFY2(view->height() <= needed + rowHeight,
                 qPrintable(QStringLiteral("the table %1 px for %2 rows (%3 px)")
                                .arg(view->height())
                                .arg(view->model()->rowCount())
                                .arg(needed)));
    }

    // Issue 40, the Queues page at 1280x800: a queue selected opens its jobs
    // in flight and its charts below the list, and the list keeps at least
    // eight of its rows whole (it was about two).
    void queueListKeepsItsRows()
    {
        QSettings().remove(QStringLiteral("splitters")); // the default split
        for (int q = 0; q < 10; ++q) {
            const QByteArray key = "sim:jobs:q" + QByteArray::number(q);
            for (int j = 0; j < 5; ++j)
                QVERIFY(call(*m_redis, {"LPUSH", key, "job-" + QByteArray::number(j)}).isInteger());
            for (int j = 0; j < 12; ++j)
                QVERIFY(
                    call(*m_redis, {"LPUSH", key + ":processing", "busy-" + QByteArray::number(j)})
                        .isInteger());
        }
        gatehouse::test::TestConsole::Options o;
        o.size = QSize(1280, 800);
        gatehouse::test::TestConsole c(m_server, audit(), o);
        const QString section = QStringLiteral("queue");
        QVERIFY(c.select(section, "sim:jobs:q0"));
        QTRY_COMPARE_WITH_TIMEOUT(c.window->model(section)->rowCount(), 10, 10000);
        SectionPage *page = c.window->sectionPage(section);
        auto *items = page->findChild<QTableWidget *>(QStringLiteral("queueItems"));
        QVERIFY(items);
        QTRY_VERIFY_WITH_TIMEOUT(items->isVisible() && items->rowCount() == 12, 10000);
        QTest::qWait(300); // the page's layout settles
        QCOMPARE(c.window->size(), QSize(1280, 800));
        QTableView *view = c.window->table(section);
        int whole = 0;
        for (int row = 0; row < view->model()->rowCount(); ++row) {
            const QRect rect = view->visualRect(view->model()->index(row, 0));
            if (!rect.isEmpty() && rect.bottom() < view->viewport()->height())
                ++whole;
        }
        QVERIFY2(
            whole >= 8,
            qPrintable(
                QStringLiteral("%1 of 10 queues whole in %2 px").arg(whole).arg(view->height())));
        // The panes below still have their room.
        QVERIFY2(items->viewport()->height() >= 2 * items->verticalHeader()->defaultSectionSize(),
                 qPrintable(QString::number(items->viewport()->height())));
        QVERIFY2(page->chart()->height() >= page->height() / 4,
                 qPrintable(QStringLiteral("the charts %1 px of %2")
                                .arg(page->chart()->height())
                                .arg(page->height())));
    }

    // Issue 19, a SETNX (legacy) lock at 1280x800: it has no TTL and no
    // known holding time, so its "Ages and countdowns" chart has nothing to
    // draw. It was an empty 0..1 s axis taking most of the page; it is one
    // line now, and the page's panes above get the room. A lock with a TTL
    // charts it over the page again.
    void emptyChartFoldsToALine()
    {
        const qint64 now = call(*m_redis, {"TIME"}).at(0).toInteger();
        call(*m_redis, {"SET", "sim:lock.legacy:0", QByteArray::number(now - 600)});
        QCOMPARE(
            call(*m_redis, {"SET", "sim:lock:orders", "holder-A", "NX", "PX", "60000"}).bytes(),
            QByteArray("OK"));
        gatehouse::test::TestConsole::Options o;
        o.size = QSize(1280, 800);
        gatehouse::test::TestConsole c(m_server, audit(), o);
        const QString section = QStringLiteral("lock");
        SectionPage *page = c.window->sectionPage(section);
        ChartPanel *chart = page->chart();
        auto *plot = chart->findChild<QCustomPlot *>();
        QVERIFY(plot);

        QVERIFY(c.select(section, "sim:lock.legacy:0"));
        QTRY_COMPARE_WITH_TIMEOUT(
            chart->foldedCharts(),
            QStringList{QStringLiteral("Ages and countdowns: none in this range")}, 10000);
        QTest::qWait(300); // the page's layout settles
        QCOMPARE(c.window->size(), QSize(1280, 800));
        QVERIFY(!plot->isVisible());
        QVERIFY2(chart->height() <= 4 * chart->fontMetrics().height() + 24,
                 qPrintable(QStringLiteral("the folded chart %1 px of %2")
                                .arg(chart->height())
                                .arg(page->height())));
        // The room went to the panes above it: the table of locks and the
        // holders' history fill the page down to the chart's line.
        auto *timeline = page->findChild<LockTimelinePanel *>();
        QVERIFY(timeline);
        QTableView *view = c.window->table(section);
        QVERIFY2(view->height() + timeline->height() + chart->height() >= page->height() * 3 / 4,
                 qPrintable(QStringLiteral("table %1 + holders %2 + chart %3 px of %4")
                                .arg(view->height())
                                .arg(timeline->height())
                                .arg(chart->height())
                                .arg(page->height())));

        // A lock with a TTL: its chart is back, over half the page.
        QVERIFY(c.select(section, "sim:lock:orders"));
        QTRY_VERIFY_WITH_TIMEOUT(plot->isVisible() && chart->foldedCharts().isEmpty()
                                     && plot->graphCount() > 0 && plot->graph(0)->dataCount() > 0,
                                 10000);
        QTest::qWait(300);
        QVERIFY2(
            chart->height() >= page->height() / 2,
            qPrintable(
                QStringLiteral("the charts %1 px of %2").arg(chart->height()).arg(page->height())));
        if (const QString dir = qEnvironmentVariable("GATEHOUSE_SHOTS"); !dir.isEmpty()) {
            QVERIFY(c.select(section, "sim:lock.legacy:0"));
            QTRY_VERIFY(!chart->foldedCharts().isEmpty());
            QTest::qWait(300);
            c.window->grab().save(dir + QStringLiteral("/locks-legacy-1280x800.png"));
        }
    }

    // A hand-written reliable queue's JSON jobs in flight read as the JSON
    // they are ({"id":7,...}), whole in the tooltip, in the normal text
    // colour: not escaped bytes ({\"id\"...}).
    void reliableQueueItemsShowJsonReadably()
    {
        const QByteArray queue = "sim:jobs:mail";
        const QByteArray job = R"({"id":7,"to":"ana@example.org","subject":"Grüße","tries":[1,2]})";
        QCOMPARE(call(*m_redis, {"RPUSH", queue, "waiting-1"}).toInteger(), 1);
        QCOMPARE(call(*m_redis, {"RPUSH", queue + ":processing", job}).toInteger(), 1);
        QCOMPARE(call(*m_redis, {"RPUSH", queue + ":processing", "plain-id-9"}).toInteger(), 2);
        Console c(m_server, audit());
        QVERIFY(c.select(QStringLiteral("queue"), queue));
        auto *items = c.window->findChild<QTableWidget *>(QStringLiteral("queueItems"));
        QVERIFY(items);
        QTRY_COMPARE_WITH_TIMEOUT(items->rowCount(), 2, 10000);
        QStringList cells;
        for (int r = 0; r < items->rowCount(); ++r)
            cells << items->item(r, 0)->text();
        const QString json = QString::fromUtf8(job);
        QVERIFY2(cells.contains(json), qPrintable(cells.join(QLatin1String(" | "))));
        QVERIFY2(cells.contains(QStringLiteral("plain-id-9")),
                 qPrintable(cells.join(QLatin1String(" | "))));
        const QTableWidgetItem *cell = items->item(int(cells.indexOf(json)), 0);
        QVERIFY(!cell->text().contains(QLatin1String("\\\"")));
        QCOMPARE(cell->toolTip(), json);
        // The normal text colour: no foreground of its own.
        QCOMPARE(cell->foreground().style(), Qt::NoBrush);
        items->resizeColumnsToContents();
        // For a look by eye: GATEHOUSE_SHOTS=<dir> saves the page.
        if (const QString dir = qEnvironmentVariable("GATEHOUSE_SHOTS"); !dir.isEmpty())
            c.window->grab().save(dir + QStringLiteral("/queue-reliable-items.png"));
    }

    void batchConfirmationSaysHowManyMatchNow()
    {
        // 120 jobs claimed long ago (past the profile's 30 s), 5 just now.
        const QByteArray queue = "sim:jobs:mail";
        QCOMPARE(call(*m_redis, {"RPUSH", queue, "waiting-1"}).toInteger(), 1);
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int i = 0; i < 125; ++i) {
            const QByteArray job = "job-" + QByteArray::number(i);
            QVERIFY(call(*m_redis, {"RPUSH", queue + ":processing", job}).toInteger() > 0);
            const qint64 at = i < 120 ? now - 120000 : now;
            QCOMPARE(call(*m_redis, {"ZADD", queue + ":claims", QByteArray::number(at), job})
                         .toInteger(),
                     1);
        }
        Console c(m_server, audit());
        QVERIFY(c.select(QStringLiteral("queue"), queue));
        auto *button = c.window->findChild<QPushButton *>(QStringLiteral("requeueStuckButton"));
        QVERIFY(button);
        QTRY_VERIFY(button->isEnabled());
        QString said;
        QString outcome;
        connect(c.window.get(), &MainWindow::actionFinished, this,
                [&](const QString &m) { outcome = m; });
        QObject owner;
        answerConfirmation(false, &said, &owner);
        button->click();
        QTRY_VERIFY_WITH_TIMEOUT(!outcome.isEmpty(), 10000);
        QVERIFY2(said.contains(QLatin1String("120 match now; up to 100 will be requeued")),
                 qPrintable(said));
        // Cancelled: nothing moved.
        QCOMPARE(call(*m_redis, {"LLEN", queue + ":processing"}).toInteger(), 125);
    }
};

QTEST_MAIN(tst_TokensLocks)
#include "tst_tokenslocks.moc"
