// SPDX-License-Identifier: MIT
// Autodetection in the console (offscreen), against a real redis-server
// filled with ordinary application keys, real structures and weakly
// evidenced look-alikes: the key cell's tooltip and the "Why:" line give a
// shown object's evidence; the Unconfirmed page lists the candidates with
// their score and reasons, Accept shows a family on its pattern's page and
// writes the rule to the profile file, Reject turns a family into ordinary
// keys; the Other keys page summarises the ordinary families with the
// planted counts, sorted and filtered; a verdict that cannot be written is
// a banner sentence; discovery's progress bar moves while the GUI thread
// keeps turning.
#include <actions/actionengine.h>
#include <candidatemodel.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <objecttablemodel.h>
#include <otherfamilymodel.h>
#include <otherkeyspage.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>
#include <patterns/presentation.h>
#include <redis/redisclient.h>
#include <sectionpage.h>
#include <unconfirmedpage.h>

#include "redisserver.h"
#include "testconsole.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

QByteArray num(qint64 v)
{
    return QByteArray::number(v);
}

// Clicks the confirmation's Ok (Accept/Reject) or Cancel once it is up.
void answerNextBox(bool ok, QObject *owner)
{
    auto *timer = new QTimer(owner);
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, ok] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        timer->stop();
        timer->deleteLater();
        box->button(ok ? QMessageBox::Ok : QMessageBox::Cancel)->click();
    });
    timer->start();
}

QString sideText(MainWindow &w, const QString &page)
{
    auto *list = w.findChild<QListWidget *>(QStringLiteral("sideList"));
    for (int i = 0; list && i < list->count(); ++i) {
        if (list->item(i)->data(Qt::UserRole).toString() == page)
            return list->item(i)->text();
    }
    return {};
}

} // namespace

class tst_UnconfirmedPage : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_client;
    QTemporaryDir m_dir;

    // Pipelined: one round trip per batch.
    bool run(const QList<QList<QByteArray>> &cmds)
    {
        QObject context;
        gatehouse::test::ReplyWait wait;
        QString failure;
        m_client->pipeline(cmds, &context, [&](const QList<RedisValue> &replies) {
            for (const RedisValue &r : replies) {
                if (r.isError() && failure.isEmpty())
                    failure = r.errorMessage();
            }
            wait.finish();
        });
        if (!wait.wait(60000) || !failure.isEmpty()) {
            qWarning("fill: %s", qPrintable(failure));
            return false;
        }
        return true;
    }

    // Ordinary families (their name, kind and count as the Other keys page
    // must show them), two real structures and two look-alikes too weakly
    // evidenced to show.
    bool plant()
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<QList<QByteArray>> cmds{{"FLUSHALL"}};
        const QByteArray json = "{\"id\":17,\"name\":\"Ann\",\"plan\":\"pro\"}";
        for (int i = 0; i < 60; ++i) // per-user caches
            cmds.append({"SET", "app:cache:user:" + num(i), json, "EX", num(300 + i * 7)});
        for (int i = 0; i < 50; ++i) // per-day stats counters
            cmds.append({"SET", "app:stats:views:2026-11-" + num(10 + i % 5) + ':' + num(i),
                         num(1 + i * 3), "EX", num(7 * 86400)});
        for (int i = 0; i < 20; ++i) // timelines: post ids by recent time (ms)
            cmds.append({"ZADD", "app:timeline:" + num(i), num(now - 3600000 + i), "post:" + num(i),
                         num(now - 60000 + i), "post:" + num(i + 1)});
        for (int i = 0; i < 30; ++i) // user profiles
            cmds.append({"HSET", "app:user:" + num(i), "name", "Ann", "plan", "pro"});
        for (int i = 0; i < 10; ++i) // logs
            cmds.append(
                {"RPUSH", "app:log:2026-11-1" + num(i % 5) + ':' + num(i), "started", "done"});
        // Real structures: a lock with a random token, a sliding window.
        cmds.append({"SET", "lock:order:1", "3f9a1c2e-77b1-4c1d-9e2a", "PX", "600000"});
        for (int i = 0; i < 5; ++i)
            cmds.append({"ZADD", "ratelimit:api:7", num(now - 4000 + i * 900), "r" + num(i)});
        cmds.append({"PEXPIRE", "ratelimit:api:7", "60000"});
        // Look-alikes: counters that expire without a word (a fixed window's
        // shape), recent times without a word (a sliding window's).
        cmds.append({"SET", "tries:1", "3", "PX", "600000"});
        cmds.append({"SET", "tries:2", "1", "PX", "600000"});
        cmds.append({"ZADD", "seen:7", num(now - 4000), "a", num(now - 10), "b"});
        return run(cmds);
    }

    // The console with no profile, its verdicts saved to profileFile.
    struct Console : test::TestConsole
    {
        explicit Console(const RedisServer &server, const QString &profileFile,
                         const QString &audit)
            : test::TestConsole(server, audit, test::autodetected())
        {
            Profile verdicts;
            verdicts.fileName = profileFile;
            verdicts.name = QFileInfo(profileFile).completeBaseName();
            window->unconfirmedPage()->setProfile(verdicts, true);
        }
    };

    static bool selectFamily(UnconfirmedPage *page, const QByteArray &family)
    {
        return page->selectFamily(family);
    }

    static const OtherFamily *other(OtherKeysPage *page, const QByteArray &family)
    {
        const int row = page->model()->rowOf(family);
        return row < 0 ? nullptr : page->model()->familyAt(row);
    }

    static void screenshot(MainWindow &w, QWidget *page, const QString &name)
    {
        w.resize(1280, 800);
        w.showPage(w.pageNames().indexOf(name));
        // The charts' queued replot at their new size and a refresh (500 ms):
        // grabbed at once, a chart showed its old, tiny layout.
        QTest::qWait(700);
        const QString file
            = QDir(QStringLiteral(GATEHOUSE_SCREENSHOT_DIR))
                  .filePath(QStringLiteral("autodetect-%1.png")
                                .arg(name.toLower().replace(QLatin1Char(' '), QLatin1Char('-'))));
        QVERIFY(page->isVisible());
        QVERIFY(w.grab().save(file));
        QVERIFY(!QImage(file).isNull());
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_client = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_client);
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    // The models keep their contract while rows come, change and go.
    void modelsAreConsistent()
    {
        CandidateModel candidates;
        QAbstractItemModelTester t1(&candidates,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        Candidate a;
        a.kind = *patternFromId(QStringLiteral("fixed-window"));
        a.family = "tries:{int}";
        a.count = 2;
        a.score = 2;
        a.evidence = {{Evidence::Kind::Structure, 2, QStringLiteral("an integer counter")}};
        Candidate b = a;
        b.family = "seen:{int}";
        candidates.setCandidates({a, b});
        QCOMPARE(candidates.rowCount(), 2);
        candidates.setCandidates({b});
        QCOMPARE(candidates.rowCount(), 1);
        QCOMPARE(candidates.index(0, CandidateModel::Family).data().toString(),
                 QStringLiteral("seen:{int}"));
        candidates.setCandidates({b, a});
        QCOMPARE(candidates.rowCount(), 2);
        QVERIFY(candidates.index(1, CandidateModel::Evidence)
                    .data()
                    .toString()
                    .contains(QLatin1String("an integer counter (+2)")));
        candidates.setCandidates({});
        QCOMPARE(candidates.rowCount(), 0);

        OtherFamilyModel families;
        QAbstractItemModelTester t2(&families,
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        OtherFamily f;
        f.family = "app:cache:user:{int}";
        f.kind = QStringLiteral("cache");
        f.type = "string";
        f.keys = 60;
        f.withTtl = 60;
        f.minTtlMs = 300000;
        f.maxTtlMs = 713000;
        f.estimatedBytes = 6000;
        f.sampledKeys = 5;
        OtherFamily g = f;
        g.family = "app:stats:views:{date}:{int}";
        g.kind = QStringLiteral("dated-counter");
        families.setFamilies({f, g});
        families.setFamilies({g});
        families.setFamilies({f, g});
        QCOMPARE(families.rowCount(), 2);
        QCOMPARE(families.index(0, OtherFamilyModel::Kind).data().toString(),
                 QStringLiteral("dated counter"));
        QCOMPARE(families.index(1, OtherFamilyModel::Ttl).data().toString(),
                 QStringLiteral("5.0 min to 11.9 min"));
        QCOMPARE(families.totalKeys(), 120);
    }

    void autodetectionInTheConsole()
    {
        QVERIFY(plant());
        const QString profileFile = m_dir.filePath(QStringLiteral("verdicts.json"));
        QFile::remove(profileFile);
        Console c(m_server, profileFile, m_dir.filePath(QStringLiteral("audit.jsonl")));
        MainWindow &w = *c.window;
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        UnconfirmedPage *unconfirmed = w.unconfirmedPage();
        OtherKeysPage *others = w.otherKeysPage();
        QAbstractItemModelTester t1(unconfirmed->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(others->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);

        // The candidates, with a count on the side list.
        QTRY_COMPARE_WITH_TIMEOUT(unconfirmed->count(), 2, 15000);
        QCOMPARE(sideText(w, QStringLiteral("Unconfirmed")), QStringLiteral("Unconfirmed  2"));
        CandidateModel *cm = unconfirmed->model();
        const int tries = cm->rowOf("tries:{int}");
        const int seen = cm->rowOf("seen:{int}");
        QVERIFY(tries >= 0 && seen >= 0);
        QCOMPARE(cm->index(tries, CandidateModel::Pattern).data().toString(),
                 PatternUnit::of(*patternFromId(QStringLiteral("fixed-window"))).title());
        QCOMPARE(cm->index(tries, CandidateModel::Instances).data().toInt(), 2);
        const int score = cm->candidateAt(tries)->score;
        QVERIFY(score > 0 && score < AutoDetector::Threshold);
        QCOMPARE(cm->index(tries, CandidateModel::Score).data().toString(),
                 QStringLiteral("%1 of %2").arg(score).arg(AutoDetector::Threshold));
        QVERIFY2(cm->index(tries, CandidateModel::Evidence)
                     .data()
                     .toString()
                     .contains(QLatin1String("integer counter")),
                 qPrintable(cm->index(tries, CandidateModel::Evidence).data().toString()));
        QVERIFY(cm->index(tries, 0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("tries:1")));
        QVERIFY(unconfirmed->summary().contains(QDir::toNativeSeparators(profileFile)));

        // The ordinary families, with the planted counts.
        QTRY_VERIFY_WITH_TIMEOUT(others->count() >= 5, 5000);
        QCOMPARE(sideText(w, QStringLiteral("Other keys")),
                 QStringLiteral("Other keys  %1").arg(others->count()));
        const struct
        {
            QByteArray family;
            QString kind;
            QByteArray type;
            qint64 keys;
        } expected[] = {
            {"app:cache:user:{int}", QStringLiteral("cache"), "string", 60},
            {"app:stats:views:{date}:{int}", QStringLiteral("dated-counter"), "string", 50},
            {"app:timeline:{int}", QStringLiteral("timeline"), "zset", 20},
            {"app:user:{int}", QStringLiteral("data"), "hash", 30},
            {"app:log:{date}:{int}", QStringLiteral("log"), "list", 10},
        };
        QStringList seenFamilies;
        for (int r = 0; r < others->count(); ++r)
            seenFamilies << QString::fromUtf8(others->model()->familyAt(r)->family)
                                + QLatin1Char(' ') + others->model()->familyAt(r)->kind;
        for (const auto &e : expected) {
            const OtherFamily *f = other(others, e.family);
            QVERIFY2(f, qPrintable(seenFamilies.join(QLatin1String(", "))));
            QCOMPARE(f->kind, e.kind);
            QCOMPARE(f->type, e.type);
            QCOMPARE(f->keys, e.keys);
        }
        const OtherFamily *caches = other(others, "app:cache:user:{int}");
        QVERIFY(caches->estimatedBytes > 0); // MEMORY USAGE, sampled by discovery
        const int cacheRow = others->model()->rowOf("app:cache:user:{int}");
        QVERIFY(others->model()
                    ->index(cacheRow, OtherFamilyModel::Memory)
                    .data()
                    .toString()
                    .startsWith(QLatin1Char('~')));
        QCOMPARE(
            others->model()->index(cacheRow, OtherFamilyModel::Ttl).data().toString(),
            QStringLiteral("%1 to %2").arg(formatMs(caches->minTtlMs), formatMs(caches->maxTtlMs)));
        QVERIFY(caches->minTtlMs > 200000 && caches->maxTtlMs <= 713000);
        w.showPage(w.pageNames().indexOf(QStringLiteral("Other keys")));
        others->table()->selectRow(0);
        screenshot(w, others, QStringLiteral("Other keys"));
        // Sorted by key count, the largest first; then by name.
        QSortFilterProxyModel *proxy = others->proxy();
        QCOMPARE(proxy->index(0, OtherFamilyModel::Family).data().toString(),
                 QStringLiteral("app:cache:user:{int}"));
        others->table()->sortByColumn(OtherFamilyModel::Family, Qt::AscendingOrder);
        QCOMPARE(proxy->index(0, OtherFamilyModel::Family).data().toString(),
                 QStringLiteral("app:cache:user:{int}"));
        others->table()->sortByColumn(OtherFamilyModel::Keys, Qt::AscendingOrder);
        QCOMPARE(proxy->index(0, OtherFamilyModel::Keys).data().toLongLong(), [&] {
            qint64 least = LLONG_MAX;
            for (int r = 0; r < others->count(); ++r)
                least = std::min(least, others->model()->familyAt(r)->keys);
            return least;
        }());
        // Ctrl+F on the page: its filter, matching any column.
        w.showPage(w.pageNames().indexOf(QStringLiteral("Other keys")));
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        auto *filter = others->findChild<QLineEdit *>(QStringLiteral("otherKeysFilter"));
        QTRY_COMPARE(QApplication::focusWidget(), filter);
        QTest::keyClicks(filter, QStringLiteral("dated"));
        QCOMPARE(proxy->rowCount(), 1);
        QCOMPARE(proxy->index(0, OtherFamilyModel::Family).data().toString(),
                 QStringLiteral("app:stats:views:{date}:{int}"));
        filter->clear();
        QCOMPARE(proxy->rowCount(), others->count());

        // A shown object's evidence: the key cell's tooltip, the "Why:" line.
        ObjectTableModel *locks = w.model(QStringLiteral("lock"));
        QTRY_VERIFY_WITH_TIMEOUT(w.model(QStringLiteral("lock"))->rowOf("lock:order:1") >= 0, 5000);
        const QString tip
            = locks->index(locks->rowOf("lock:order:1"), 0).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QLatin1String("Evidence: score")), qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("structure: ")) && tip.contains(QLatin1String("(+")),
                 qPrintable(tip));
        QVERIFY2(tip.contains(QLatin1String("random token")), qPrintable(tip));
        w.showPage(w.pageOf(QStringLiteral("lock")));
        QVERIFY(w.sectionPage(QStringLiteral("lock"))->selectKey("lock:order:1"));
        const QString why = w.sectionPage(QStringLiteral("lock"))->whyText();
        QVERIFY2(why.startsWith(QLatin1String("Why: "))
                     && why.contains(QLatin1String("random token")),
                 qPrintable(why));
        QVERIFY(w.sectionPage(QStringLiteral("lock"))
                    ->findChild<QWidget *>(QStringLiteral("lockWhy"))
                    ->isVisible());
        screenshot(w, w.sectionPage(QStringLiteral("lock")), QStringLiteral("Locks"));
        ObjectTableModel *limiters = w.model(QStringLiteral("limiter"));
        QTRY_VERIFY_WITH_TIMEOUT(w.model(QStringLiteral("limiter"))->rowOf("ratelimit:api:7") >= 0,
                                 5000);
        QVERIFY(limiters->index(limiters->rowOf("ratelimit:api:7"), 0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("\"ratelimit\" in its name")));
        QCOMPARE(limiters->rowOf("tries:1"), -1); // a candidate is not shown

        // Accept, cancelled: nothing written.
        w.showPage(w.pageNames().indexOf(QStringLiteral("Unconfirmed")));
        auto *accept = unconfirmed->findChild<QPushButton *>(QStringLiteral("acceptCandidate"));
        auto *reject = unconfirmed->findChild<QPushButton *>(QStringLiteral("rejectCandidate"));
        QVERIFY(!accept->isEnabled()); // nothing selected
        QVERIFY(selectFamily(unconfirmed, "tries:{int}"));
        QVERIFY(accept->isEnabled() && reject->isEnabled());
        QVERIFY(unconfirmed->detail().startsWith(QLatin1String("Why: ")));
        screenshot(w, unconfirmed, QStringLiteral("Unconfirmed"));
        QSignalSpy finished(&w, &MainWindow::actionFinished);
        answerNextBox(false, this);
        accept->click();
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(finished.takeFirst().first().toString(),
                 QStringLiteral("Cancelled: the profile was not changed."));
        QVERIFY(!QFile::exists(profileFile));

        // Accept: the rule is in the file, the family on the Limiters page.
        answerNextBox(true, this);
        accept->click();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QVERIFY2(finished.first().first().toString().startsWith(QLatin1String("Accepted 2 ")),
                 qPrintable(finished.first().first().toString()));
        finished.clear();
        QCOMPARE(unconfirmed->count(), 1); // at once: no second verdict on it
        QString error;
        std::optional<Profile> written = Profile::load(profileFile, &error);
        QVERIFY2(written, qPrintable(error));
        QVERIFY(written->autodetect);
        QCOMPARE(written->rules.size(), 1);
        QCOMPARE(written->rules.first().kind.id(), QStringLiteral("fixed-window"));
        QCOMPARE(written->rules.first().match, QByteArray("tries:*"));
        // (model() brings a hidden page's table up to the latest snapshot)
        QTRY_VERIFY_WITH_TIMEOUT(w.model(QStringLiteral("limiter"))->rowOf("tries:1") >= 0
                                     && limiters->rowOf("tries:2") >= 0,
                                 15000);
        QVERIFY(limiters->index(limiters->rowOf("tries:1"), 0)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("profile: ")));
        QCOMPARE(cm->rowOf("tries:{int}"), -1);

        // Reject: the family is ordinary from then on.
        QVERIFY(selectFamily(unconfirmed, "seen:{int}"));
        answerNextBox(true, this);
        reject->click();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QVERIFY2(finished.first().first().toString().startsWith(QLatin1String("Rejected seen:*")),
                 qPrintable(finished.first().first().toString()));
        finished.clear();
        QCOMPARE(unconfirmed->count(), 0);
        written = Profile::load(profileFile, &error);
        QVERIFY2(written, qPrintable(error));
        QCOMPARE(written->rejected, (QList<QByteArray>{"seen:*"}));
        QCOMPARE(written->rules.size(), 1); // the accepted rule stays
        QTRY_VERIFY_WITH_TIMEOUT(other(others, "seen:{int}") != nullptr, 15000);
        QCOMPARE(unconfirmed->count(), 0);
        QTRY_COMPARE(sideText(w, QStringLiteral("Unconfirmed")), QStringLiteral("Unconfirmed  0"));
        QVERIFY(unconfirmed->summary().startsWith(QLatin1String("Nothing unconfirmed")));
        QVERIFY(w.bannerText().isEmpty());
    }

    // A verdict whose profile cannot be written: a banner sentence naming
    // the file, and nothing changes.
    void unwritableProfileIsABanner()
    {
        QVERIFY(plant());
        QFile blocker(m_dir.filePath(QStringLiteral("not-a-directory")));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        const QString profileFile = blocker.fileName() + QStringLiteral("/verdicts.json");
        Console c(m_server, profileFile, m_dir.filePath(QStringLiteral("audit2.jsonl")));
        MainWindow &w = *c.window;
        UnconfirmedPage *unconfirmed = w.unconfirmedPage();
        QTRY_COMPARE_WITH_TIMEOUT(unconfirmed->count(), 2, 15000);
        w.showPage(w.pageNames().indexOf(QStringLiteral("Unconfirmed")));
        QVERIFY(selectFamily(unconfirmed, "tries:{int}"));
        QSignalSpy finished(&w, &MainWindow::actionFinished);
        answerNextBox(true, this);
        unconfirmed->findChild<QPushButton *>(QStringLiteral("acceptCandidate"))->click();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 10000);
        QVERIFY2(w.bannerText().contains(QLatin1String("The verdict was not saved."))
                     && w.bannerText().contains(QLatin1String("Could not write the profile"))
                     && w.bannerText().contains(QLatin1String("not-a-directory")),
                 qPrintable(w.bannerText()));
        QCOMPARE(unconfirmed->count(), 2);
        QVERIFY(unconfirmed->findChild<QPushButton *>(QStringLiteral("acceptCandidate"))
                    ->isEnabled()); // it can be tried again
    }

    // Discovery of a larger keyspace: the status bar's bar counts the keys
    // scanned against DBSIZE and goes when it is done; the monitor works on
    // its own thread (as in the console), so the GUI thread keeps turning.
    void discoveryProgress()
    {
        call(*m_client, {"FLUSHALL"});
        constexpr int keys = 60000;
        QList<QList<QByteArray>> cmds;
        for (int i = 0; i < keys; ++i)
            cmds.append({"SET", "app:cache:item:" + num(i), "{\"id\":1}", "EX", "3600"});
        QVERIFY(run(cmds));
        // As the console runs it: the monitor and its client on a thread of
        // their own (the deployment makes and deletes them there).
        QThread thread;
        thread.start();
        {
            Deployment::Options options;
            options.endpoint = m_server.endpoint();
            options.monitor.intervalMs = 500;
            options.retryFirstConnection = true;
            options.thread = &thread;
            options.actions = true;
            options.auditLogPath = m_dir.filePath(QStringLiteral("audit3.jsonl"));
            Deployment deployment(options);
            MainWindow w(&deployment, {});
            auto *bar = w.findChild<QProgressBar *>(QStringLiteral("discoveryProgress"));
            QVERIFY(bar);
            w.show();
            QList<int> values;
            int maximum = 0;
            qint64 longestGapMs = 0;
            QElapsedTimer sinceLast;
            QTimer sampler;
            sampler.setInterval(5);
            connect(&sampler, &QTimer::timeout, this, [&] {
                if (sinceLast.isValid())
                    longestGapMs = std::max(longestGapMs, sinceLast.elapsed());
                sinceLast.start();
                if (bar->isVisible() && (values.isEmpty() || values.last() != bar->value())) {
                    values << bar->value();
                    maximum = bar->maximum();
                }
            });
            sampler.start();
            deployment.start();
            QTRY_VERIFY_WITH_TIMEOUT(w.otherKeysPage()->count() == 1, 60000);
            sampler.stop();
            qInfo("progress values seen: %lld, longest GUI-thread gap %lld ms",
                  qint64(values.size()), longestGapMs);
            QVERIFY2(values.size() >= 2, "the bar never moved while discovery ran");
            QCOMPARE(maximum, keys); // DBSIZE
            QVERIFY(std::is_sorted(values.cbegin(), values.cend()));
            QVERIFY(values.first() < keys);
            QTRY_VERIFY(!bar->isVisible());
            QCOMPARE(w.otherKeysPage()->model()->familyAt(0)->keys, keys);
            // The event loop was never held up for long while 60,000 keys
            // were scanned and judged (a loaded machine: a generous bound).
            QVERIFY2(longestGapMs < 1000, qPrintable(QString::number(longestGapMs)));
        }
        thread.quit();
        thread.wait();
    }
};

QTEST_MAIN(tst_UnconfirmedPage)
#include "tst_unconfirmedpage.moc"
