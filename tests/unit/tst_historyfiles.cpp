// SPDX-License-Identifier: MIT
// The history file itself: its options and name, a file of an older format,
// events, a writer killed mid-write, a damaged or locked file set aside, and
// a file or directory this user cannot write left as it is (and still read).
#include <history/historyreadconnection.h>
#include <history/historystore.h>
#include <history/historywriter.h>
#include <patterns/patternregistry.h>
#include <redis/redisendpoint.h>

#include "historytestdata.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUuid>

#include <csignal>
#include <cstdio>

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

using namespace gatehouse;
using namespace gatehouse::historytest;

namespace {

const PatternKind &s_limiter = historytest::limiter;

using Verdict = Internal::HistoryWriter::Verdict;

constexpr QFileDevice::Permissions ReadOnly = QFileDevice::ReadOwner | QFileDevice::ReadUser
                                              | QFileDevice::ReadGroup | QFileDevice::ReadOther;
constexpr QFileDevice::Permissions Search
    = QFileDevice::ExeOwner | QFileDevice::ExeUser | QFileDevice::ExeGroup | QFileDevice::ExeOther;
constexpr QFileDevice::Permissions Writable = QFileDevice::WriteOwner | QFileDevice::WriteUser
                                              | QFileDevice::WriteGroup | QFileDevice::WriteOther;

} // namespace

class tst_HistoryFiles : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")),
                 "Qt's SQLite driver is missing: run .ci/install-deps (Debian libqt6sql6-sqlite).");
        QVERIFY(PatternRegistry::instance().find(s_limiter) != nullptr);
    }

    // --history-full, --history-keep, --history-cap as an operator writes them.
    void optionsFromText()
    {
        QString error;
        const auto defaults = HistoryStore::Options::fromText({}, {}, {}, &error);
        QVERIFY(defaults);
        QCOMPARE(defaults->fullResolutionMs, 24LL * 3600 * 1000);
        QCOMPARE(defaults->bucketRetentionMs, 30LL * 24 * 3600 * 1000);
        QCOMPARE(defaults->capBytes, 1024LL * 1024 * 1024);
        const auto set = HistoryStore::Options::fromText(QStringLiteral("2h"), QStringLiteral("7d"),
                                                         QStringLiteral("500MB"), &error);
        QVERIFY2(set, qPrintable(error));
        QCOMPARE(set->fullResolutionMs, 2LL * 3600 * 1000);
        QCOMPARE(set->bucketRetentionMs, 7LL * 24 * 3600 * 1000);
        QCOMPARE(set->capBytes, 500LL * 1000 * 1000);
        const auto binary = HistoryStore::Options::fromText(QStringLiteral("1d12h"), {},
                                                            QStringLiteral("2GiB"), &error);
        QVERIFY2(binary, qPrintable(error));
        QCOMPARE(binary->fullResolutionMs, 36LL * 3600 * 1000);
        QCOMPARE(binary->capBytes, 2LL * 1024 * 1024 * 1024);
        const struct
        {
            const char *full, *keep, *cap, *says;
        } bad[] = {{"yesterday", "", "", "--history-full \"yesterday\" is not a duration"},
                   {"0h", "", "", "--history-full \"0h\" is not a duration"},
                   {"", "forever", "", "--history-keep \"forever\" is not a duration"},
                   {"48h", "1d", "", "is shorter than --history-full"},
                   {"", "", "lots", "--history-cap \"lots\" is not a size"},
                   {"", "", "10KB", "of at least 1 MB"}};
        for (const auto &b : bad) {
            error.clear();
            QVERIFY(!HistoryStore::Options::fromText(QLatin1String(b.full), QLatin1String(b.keep),
                                                     QLatin1String(b.cap), &error));
            QVERIFY2(error.contains(QLatin1String(b.says)), qPrintable(error));
        }
    }

    void fileNameHasNoSecrets()
    {
        QString error;
        const auto e = RedisEndpoint::fromUrl(
            QStringLiteral("redis://ops:s3cret@cache.internal:6380/2"), &error);
        QVERIFY(e);
        const QString path = HistoryStore::fileFor(*e, QStringLiteral("/tmp/h"));
        QCOMPARE(path, QStringLiteral("/tmp/h/redis_ops_cache.internal_6380_db2.sqlite"));
        QVERIFY(!path.contains(QStringLiteral("s3cret")));
        const auto plain = RedisEndpoint::fromUrl(QStringLiteral("redis://127.0.0.1:6379"), &error);
        QCOMPARE(HistoryStore::fileFor(*plain, QStringLiteral("/d")),
                 QStringLiteral("/d/redis_127.0.0.1_6379_db0.sqlite"));
    }

    // A file of format 1 (every figure every tick) is renamed aside with a
    // sentence saying so; a new file is started; the old one stays readable.
    void oldFormatFileSetAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("old.sqlite"));
        {
            const QString name = QUuid::createUuid().toString();
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
                db.setDatabaseName(path);
                QVERIFY(db.open());
                QSqlQuery q(db);
                for (const char *sql :
                     {"CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)",
                      "CREATE TABLE objects (id INTEGER PRIMARY KEY, key BLOB NOT NULL, pattern "
                      "TEXT NOT NULL, figures TEXT NOT NULL, UNIQUE (key, pattern))",
                      "CREATE TABLE recent (t INTEGER PRIMARY KEY, data BLOB NOT NULL)",
                      "CREATE TABLE samples (minute INTEGER NOT NULL, object INTEGER NOT NULL, "
                      "data BLOB NOT NULL, PRIMARY KEY (minute, object)) WITHOUT ROWID",
                      "CREATE TABLE buckets (hour INTEGER NOT NULL, object INTEGER NOT NULL, data "
                      "BLOB NOT NULL, PRIMARY KEY (hour, object)) WITHOUT ROWID",
                      "CREATE TABLE events (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, key "
                      "BLOB, kind TEXT NOT NULL, text TEXT NOT NULL)",
                      "INSERT INTO meta VALUES ('format', '1')"})
                    QVERIFY2(q.exec(QString::fromLatin1(sql)), sql);
                q.prepare(QStringLiteral("INSERT INTO objects VALUES (1, ?, 'sliding-window', "
                                         "'inWindow,occupancy,retryHorizonMs')"));
                q.addBindValue(QByteArray("rl:old")); // keys are blobs
                QVERIFY(q.exec());
                for (int k = 0; k < 3; ++k) {
                    Internal::TickBlobWriter blob(1);
                    const float values[3] = {float(7 + k), float(7 + k) / 100.0f, 0};
                    blob.add(1, values, 3);
                    q.prepare(QStringLiteral("INSERT INTO recent VALUES (?, ?)"));
                    q.addBindValue(T0 + 1000 * k);
                    q.addBindValue(blob.finish());
                    QVERIFY(q.exec());
                }
            }
            QSqlDatabase::removeDatabase(name);
        }
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        QSignalSpy opened(&store, &HistoryStore::opened);
        store.open();
        QVERIFY(opened.wait(20000));
        QCOMPARE(problems.size(), 1);
        const QString sentence = problems.at(0).at(0).toString();
        QVERIFY2(sentence.contains(path) && sentence.contains(QStringLiteral("older Gatehouse"))
                     && sentence.contains(QStringLiteral("a new file"))
                     && sentence.contains(QStringLiteral("--history-dir")),
                 qPrintable(sentence));
        const QString aside = sentence.section(QStringLiteral("renamed to "), 1)
                                  .section(QStringLiteral(" and a new file"), 0, 0);
        QVERIFY2(aside.startsWith(path + QStringLiteral(".format1-")), qPrintable(aside));
        QString error;
        const auto old = HistoryStore::read(aside, "rl:old", T0, T0 + 5000, &error);
        QVERIFY2(old, qPrintable(error));
        QCOMPARE(old->times, (QList<qint64>{T0, T0 + 1000, T0 + 2000}));
        QCOMPARE(old->values.at(0), (QList<float>{7, 8, 9}));
        // The new file takes history, in format 2.
        HistoryTick tick;
        tick.atMs = T0 + 10000;
        tick.entries.append({"rl:old", s_limiter, 3, {4, 0.04, 0}});
        store.append(tick);
        store.flush();
        const auto fresh = HistoryStore::read(path, "rl:old", T0, T0 + 20000, &error);
        QVERIFY2(fresh, qPrintable(error));
        QCOMPARE(fresh->times, QList<qint64>{T0 + 10000});
        QCOMPARE(fresh->values.at(0).first(), 4.0f);
    }

    void eventsRecordedAndRead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("events.sqlite"));
        {
            HistoryStore store(path);
            store.open();
            store.recordEvent(T0 + 5000, "rl:api:1", QStringLiteral("fired"),
                              QStringLiteral("Limiter rl:api:1 at 93 % for 10 s"));
            store.recordEvent(T0 + 9000, "rl:api:1", QStringLiteral("resolved"),
                              QStringLiteral("Limiter rl:api:1 back under 80 %"));
            store.recordEvent(T0 + 7000, "lock:x", QStringLiteral("fired"),
                              QStringLiteral("Lock lock:x held for 31 s"));
            store.flush();
        }
        QString error;
        const auto all = HistoryStore::readEvents(path, T0, T0 + 10000, {}, 100, &error);
        QVERIFY2(all, qPrintable(error));
        QCOMPARE(all->size(), 3);
        QCOMPARE(all->at(1).key, QByteArray("lock:x")); // in time order
        const auto one = HistoryStore::readEvents(path, T0, T0 + 10000, "rl:api:1", 100, &error);
        QCOMPARE(one->size(), 2);
        QCOMPARE(one->at(1).kind, QStringLiteral("resolved"));
        QCOMPARE(one->at(1).atMs, T0 + 9000);
    }

    // A writer killed with SIGKILL loses at most about the last commit
    // interval (two seconds), and the file opens again.
    void killedWriterLosesAtMostTheLastInterval()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("crash.sqlite"));
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(),
                    {QStringLiteral("--writer-child"), path});
        QVERIFY(child.waitForStarted());
        // Wait until it has appended for 3 s, reading the times it appended.
        qint64 lastAppended = -1;
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 30000) {
            QTRY_VERIFY_WITH_TIMEOUT(child.canReadLine() || child.waitForReadyRead(100), 30000);
            while (child.canReadLine()) {
                const QByteArray line = child.readLine().trimmed();
                if (!line.isEmpty())
                    lastAppended = line.toLongLong();
            }
            if (lastAppended > 0 && timer.elapsed() > 5000)
                break;
        }
        QVERIFY(lastAppended > 0);
        ::kill(pid_t(child.processId()), SIGKILL);
        QVERIFY(child.waitForFinished(10000));
        while (child.canReadLine()) { // appended before the kill
            const QByteArray line = child.readLine().trimmed();
            if (!line.isEmpty())
                lastAppended = line.toLongLong();
        }
        QString error;
        const auto r = HistoryStore::read(path, "rl:crash", 0, lastAppended + 1, &error);
        QVERIFY2(r, qPrintable(error));
        QVERIFY(!r->times.isEmpty());
        const qint64 lost = lastAppended - r->times.last();
        std::printf("history: killed writer: last appended %lld, last on disk %lld: lost %lld ms\n",
                    lastAppended, r->times.last(), lost);
        const qint64 interval = HistoryStore::Options().commitIntervalMs;
        QVERIFY2(lost <= interval + 100, qPrintable(QString::number(lost)));
        // No gap before the end: every 100 ms tick up to the last kept.
        QCOMPARE(r->times.size(), qsizetype((r->times.last() - r->times.first()) / 100 + 1));
        // It opens again, without being set aside, and takes more.
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        QSignalSpy opened(&store, &HistoryStore::opened);
        store.open();
        QVERIFY(opened.wait(10000));
        QVERIFY(problems.isEmpty());
        HistoryTick tick;
        tick.atMs = lastAppended + 1000;
        tick.entries.append({"rl:crash", s_limiter, 3, {1, 2, 3}});
        store.append(tick);
        store.flush();
        const auto again = HistoryStore::read(path, "rl:crash", 0, tick.atMs, &error);
        QVERIFY(again);
        QCOMPARE(again->times.last(), tick.atMs);
    }

    void corruptFileSetAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("garbage.sqlite"));
        QByteArray garbage;
        QRandomGenerator rng(3);
        for (int i = 0; i < 65536; ++i)
            garbage.append(char(rng.bounded(256)));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(garbage);
        }
        checkSetAside(path, garbage, QStringLiteral("is not a readable history database"));
    }

    // Another process holds the file's write lock (sqlite3 in Python).
    void lockedFileSetAside()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("locked.sqlite"));
        {
            HistoryStore store(path);
            store.open();
            HistoryTick tick;
            tick.atMs = T0;
            tick.entries.append({"rl:a", s_limiter, 3, {1, 2, 3}});
            store.append(tick);
            store.flush();
        }
        QProcess locker;
        locker.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        locker.start(QStringLiteral("/usr/bin/python3"),
                     {QStringLiteral("-c"),
                      QStringLiteral("import sqlite3, sys\n"
                                     "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                                     "c.execute('BEGIN EXCLUSIVE')\n"
                                     "print('locked', flush=True)\n"
                                     "sys.stdin.read()\n"),
                      path});
        QVERIFY2(locker.waitForStarted(), "python3 is missing: run .ci/install-deps.");
        QByteArray said;
        QTRY_VERIFY_WITH_TIMEOUT((said += locker.readAll()).contains("locked"), 20000);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        checkSetAside(path, before, QStringLiteral("is locked by another process"));
        locker.closeWriteChannel();
        QVERIFY(locker.waitForFinished(10000));
    }

    // Only SQLite's word that the file is damaged (SQLITE_CORRUPT,
    // SQLITE_NOTADB) sets it aside; a file SQLite may not write, or a full
    // disk, is left as it is. Extended codes count by their primary code.
    void openErrorsClassified()
    {
        const auto verdict = [](const char *code, const char *text = "") {
            return Internal::HistoryWriter::verdictOf(QSqlError(
                QString(), QLatin1String(text), QSqlError::StatementError, QLatin1String(code)));
        };
        QCOMPARE(verdict("26"), Verdict::Corrupt);       // SQLITE_NOTADB
        QCOMPARE(verdict("11"), Verdict::Corrupt);       // SQLITE_CORRUPT
        QCOMPARE(verdict("267"), Verdict::Corrupt);      // SQLITE_CORRUPT_VTAB
        QCOMPARE(verdict("8"), Verdict::NotWritable);    // SQLITE_READONLY
        QCOMPARE(verdict("1544"), Verdict::NotWritable); // SQLITE_READONLY_DIRECTORY
        QCOMPARE(verdict("264"), Verdict::NotWritable);  // SQLITE_READONLY_RECOVERY
        QCOMPARE(verdict("3"), Verdict::NotWritable);    // SQLITE_PERM
        QCOMPARE(verdict("5"), Verdict::Locked);         // SQLITE_BUSY
        QCOMPARE(verdict("517"), Verdict::Locked);       // SQLITE_BUSY_SNAPSHOT
        QCOMPARE(verdict("6"), Verdict::Locked);         // SQLITE_LOCKED
        QCOMPARE(verdict("13"), Verdict::Failed);        // SQLITE_FULL
        QCOMPARE(verdict("522"), Verdict::Failed);       // SQLITE_IOERR_SHORT_READ
        QCOMPARE(verdict("14"), Verdict::Failed);        // SQLITE_CANTOPEN
        QCOMPARE(verdict("1"), Verdict::Failed);         // SQLITE_ERROR
        QCOMPARE(verdict("", "database is locked"), Verdict::Locked);
        QCOMPARE(verdict("", "attempt to write a readonly database"), Verdict::Failed);

        // The errors SQLite itself gives, which permission bits cannot fake
        // for root: a write through a read-only connection, and a file of
        // random bytes.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("good.sqlite"));
        writeOneTick(path, "rl:good");
        const QString garbagePath = dir.filePath(QStringLiteral("garbage.sqlite"));
        {
            QFile f(garbagePath);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QRandomGenerator rng(5);
            for (int i = 0; i < 8192; ++i)
                f.putChar(char(rng.bounded(256)));
        }
        const QString name = QUuid::createUuid().toString();
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            db.setDatabaseName(path);
            db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
            QVERIFY(db.open());
            {
                QSqlQuery q(db);
                QVERIFY(!q.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS extra (a)")));
                QCOMPARE(Internal::HistoryWriter::verdictOf(q.lastError()), Verdict::NotWritable);
            }
            db.close();
            db.setDatabaseName(garbagePath);
            QVERIFY(db.open());
            QSqlQuery g(db);
            QVERIFY(!g.exec(QStringLiteral("PRAGMA quick_check")));
            QCOMPARE(Internal::HistoryWriter::verdictOf(g.lastError()), Verdict::Corrupt);
        }
        QSqlDatabase::removeDatabase(name);
    }

    // A good file this user cannot write is left as it is, with a sentence
    // saying what to do, and no history is kept: not renamed aside as
    // corrupt, whether or not the directory would let it be renamed.
    // Permission bits do not stop root: run as root, the opening is done
    // by a child running as "nobody".
    void unwritableFileLeftAsItIs()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("shared.sqlite"));
        writeOneTick(path, "rl:kept");
        const QByteArray before = contentOf(path);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"shared.sqlite"});
        QVERIFY(QFile::setPermissions(path, ReadOnly));
        const auto restore = qScopeGuard([&] {
            QFile::setPermissions(dir.path(), ReadOnly | Search | QFileDevice::WriteOwner);
            QFile::setPermissions(path, ReadOnly | QFileDevice::WriteOwner);
        });
        for (const bool dirWritable : {true, false}) {
            QVERIFY(QFile::setPermissions(
                dir.path(),
                ReadOnly | Search | (dirWritable ? Writable : QFileDevice::Permissions())));
            QString skip;
            const QStringList lines = asUnprivileged({QStringLiteral("--open-child"), path}, &skip);
            if (!skip.isEmpty())
                QSKIP(qPrintable(skip));
            const QStringList problems = lines.filter(QStringLiteral("problem: "));
            QVERIFY2(problems.size() == 1, qPrintable(lines.join(QLatin1Char('\n'))));
            const QString sentence = problems.first();
            QVERIFY2(sentence.contains(path)
                         && sentence.contains(QStringLiteral("is not writable by this user"))
                         && sentence.contains(QStringLiteral("left as it is"))
                         && sentence.contains(QStringLiteral("--history-dir"))
                         && sentence.contains(QStringLiteral("fix the permissions"))
                         && !sentence.contains(QStringLiteral("renamed"))
                         && !sentence.contains(QStringLiteral("Move the file away")),
                     qPrintable(sentence));
            QVERIFY2(!lines.contains(QStringLiteral("opened")),
                     qPrintable(lines.join(QLatin1Char(' '))));
            QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"shared.sqlite"});
            QCOMPARE(contentOf(path), before);
        }
        // Its owner still reads what it held.
        QVERIFY(QFile::setPermissions(dir.path(), ReadOnly | Search | QFileDevice::WriteOwner));
        QString error;
        const auto r = HistoryStore::read(path, "rl:kept", 0, T0 + 1000, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->times, QList<qint64>{T0});
    }

    // A reader in a directory it cannot write reads the file (SQLite cannot
    // make the -shm index of a WAL file there), as root does; run as root,
    // the reading is done by a child running as "nobody".
    void readInDirectoryNotWritable()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("kept.sqlite"));
        writeOneTick(path, "rl:ro");
        QVERIFY(!QFileInfo::exists(path + QStringLiteral("-shm")));
        QVERIFY(QFile::setPermissions(dir.path(), ReadOnly | Search));
        const auto restore = qScopeGuard([&] {
            QFile::setPermissions(dir.path(), ReadOnly | Search | QFileDevice::WriteOwner);
        });
        QString skip;
        const QStringList lines = asUnprivileged(
            {QStringLiteral("--read-child"), path, QStringLiteral("rl:ro")}, &skip);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QCOMPARE(lines, QStringList{"read: 1 samples at 1763942400000, 1 events"});
    }

    // The read-only open of that reader: a URI, so a '#', '?' or '%' in the
    // path is not taken for its query; nothing made beside the file, and
    // nothing written.
    void immutableReadTakesThePathAsItIs()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("odd #1?")));
        const QString path = dir.filePath(QStringLiteral("odd #1?/h 100%.sqlite"));
        writeOneTick(path, "rl:odd");
        const QString name = QUuid::createUuid().toString();
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            Internal::ReadConnection::configure(db, path, true);
            QVERIFY2(db.open(), qPrintable(db.lastError().text()));
            QSqlQuery q(db);
            QVERIFY2(q.exec(QStringLiteral("SELECT key FROM objects")) && q.next(),
                     qPrintable(q.lastError().text()));
            QCOMPARE(q.value(0).toByteArray(), QByteArray("rl:odd"));
            q.finish();
            QVERIFY(!q.exec(QStringLiteral("CREATE TABLE extra (a)")));
        }
        QSqlDatabase::removeDatabase(name);
        QCOMPARE(QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files),
                 QStringList{"h 100%.sqlite"});
        QVERIFY(!Internal::ReadConnection::readsImmutable(path)); // its directory is writable
    }

private:
    // A file holding one tick of key at T0 and one event, closed.
    void writeOneTick(const QString &path, const QByteArray &key)
    {
        HistoryStore store(path);
        store.open();
        HistoryTick tick;
        tick.atMs = T0;
        tick.entries.append({key, s_limiter, 3, {1, 2, 3}});
        store.append(tick);
        store.recordEvent(T0, key, QStringLiteral("fired"), QStringLiteral("over 80 %"));
        store.flush();
    }

    static QByteArray contentOf(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    // This test again as a child (--open-child, --read-child), as the user
    // "nobody" when the test runs as root. Its lines; *skip says why it
    // could not run so.
    static QStringList asUnprivileged(QStringList args, QString *skip)
    {
        if (::geteuid() == 0)
            args << QStringLiteral("--as-nobody");
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(), args);
        if (!child.waitForFinished(30000))
            return {QStringLiteral("the child did not finish")};
        const QString out = QString::fromLocal8Bit(child.readAllStandardOutput()).trimmed();
        if (child.exitStatus() == QProcess::NormalExit && child.exitCode() == 77) {
            *skip = out;
            return {};
        }
        return out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    void checkSetAside(const QString &path, const QByteArray &content, const QString &why)
    {
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        QSignalSpy opened(&store, &HistoryStore::opened);
        store.open();
        QVERIFY(opened.wait(20000));
        QCOMPARE(problems.size(), 1);
        const QString sentence = problems.at(0).at(0).toString();
        QVERIFY2(sentence.contains(path) && sentence.contains(why)
                     && sentence.contains(QStringLiteral("renamed to"))
                     && sentence.contains(QStringLiteral("a new file was started")),
                 qPrintable(sentence));
        const QString aside = sentence.section(QStringLiteral("renamed to "), 1)
                                  .section(QStringLiteral(" and a new file"), 0, 0);
        QVERIFY2(aside.startsWith(path + QStringLiteral(".corrupt-")), qPrintable(aside));
        QFile moved(aside);
        QVERIFY2(moved.open(QIODevice::ReadOnly), qPrintable(aside));
        QCOMPARE(moved.readAll(), content);
        // The fresh file takes history.
        HistoryTick tick;
        tick.atMs = T0 + 1000;
        tick.entries.append({"rl:new", s_limiter, 3, {4, 5, 6}});
        store.append(tick);
        store.flush();
        QString error;
        const auto r = HistoryStore::read(path, "rl:new", 0, T0 + 2000, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->times, QList<qint64>{T0 + 1000});
        QCOMPARE(r->values.at(2).first(), 6.0f);
    }
};

// --writer-child PATH: appends a tick every 100 ms (local ms as server
// time) and prints each tick's time once appended, until killed.
static int writerChild(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    HistoryStore store(QString::fromLocal8Bit(argv[2]));
    store.open();
    QTimer timer;
    timer.setInterval(100);
    const qint64 base = QDateTime::currentMSecsSinceEpoch() / 100 * 100;
    qint64 k = 0;
    QObject::connect(&timer, &QTimer::timeout, &store, [&store, base, &k] {
        HistoryTick tick;
        tick.atMs = base + 100 * k++; // a tick every 100 ms of server time
        tick.entries.append({"rl:crash", s_limiter, 3, {float(tick.atMs % 1000), 0.5f, 0}});
        for (int i = 0; i < 2000; ++i) // some weight, as a real tick has
            tick.entries.append({keyOf(i), s_limiter, 3, {float(i), 0.1f, 0}});
        store.append(tick);
        std::printf("%lld\n", tick.atMs);
        std::fflush(stdout);
    });
    timer.start();
    return app.exec();
}

// --open-child PATH / --read-child PATH KEY, then --as-nobody when run as
// root: opens the history file for writing and prints the problems said
// ("problem: ...") and "opened" if it was; or reads KEY and the events.
// Exit 77: it cannot run as such a user here.
static int unprivilegedChild(int argc, char **argv)
{
    if (qstrcmp(argv[argc - 1], "--as-nobody") == 0) {
        const passwd *pw = ::getpwnam("nobody");
        if (!pw || ::setgroups(0, nullptr) != 0 || ::setgid(pw->pw_gid) != 0
            || ::setuid(pw->pw_uid) != 0) {
            std::printf("Running as root, and cannot become the user nobody, whom permission "
                        "bits stop.\n");
            return 77;
        }
    }
    QCoreApplication app(argc, argv);
    const QString path = QString::fromLocal8Bit(argv[2]);
    if (!QFileInfo::exists(path)) {
        std::printf("The user nobody cannot reach %s (a temporary directory under a private "
                    "one?).\n",
                    qPrintable(path));
        return 77;
    }
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        std::printf("Qt's SQLite driver cannot be loaded as the user nobody.\n");
        return 77;
    }
    if (qstrcmp(argv[1], "--read-child") == 0) {
        QString error;
        const auto range = HistoryStore::read(path, QByteArray(argv[3]), 0, T0 + HourMs, &error);
        const auto events = range ? HistoryStore::readEvents(path, 0, T0 + HourMs, {}, 100, &error)
                                  : std::nullopt;
        if (!events)
            std::printf("read error: %s\n", qPrintable(error));
        else
            std::printf("read: %lld samples at %s, %lld events\n", qint64(range->times.size()),
                        qPrintable(range->times.isEmpty() ? QString()
                                                          : QString::number(range->times.first())),
                        qint64(events->size()));
        return 0;
    }
    HistoryStore store(path);
    QStringList problems;
    bool opened = false;
    QObject::connect(&store, &HistoryStore::problem, &store,
                     [&problems](const QString &m) { problems << m; });
    QObject::connect(&store, &HistoryStore::opened, &store, [&opened] { opened = true; });
    store.open();
    store.flush(); // open() has run on the store's thread, its signals are queued here
    QCoreApplication::processEvents();
    for (const QString &m : std::as_const(problems))
        std::printf("problem: %s\n", qPrintable(m));
    if (opened)
        std::printf("opened\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && qstrcmp(argv[1], "--writer-child") == 0)
        return writerChild(argc, argv);
    if ((argc >= 3 && qstrcmp(argv[1], "--open-child") == 0)
        || (argc >= 4 && qstrcmp(argv[1], "--read-child") == 0))
        return unprivilegedChild(argc, argv);
    QCoreApplication app(argc, argv);
    tst_HistoryFiles tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_historyfiles.moc"
