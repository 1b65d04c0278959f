// SPDX-License-Identifier: MIT
#include <actions/auditlog.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QThreadPool>

using namespace gatehouse;

class tst_AuditLog : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // count lines of exactly lineLength bytes (newline included), "n" = 0..count-1.
    QString writeFixedLines(const QString &name, int count, int lineLength)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return {};
        for (int i = 0; i < count; ++i) {
            QByteArray line = "{\"n\":" + QByteArray::number(i) + ",\"pad\":\"";
            const int pad = lineLength - int(line.size()) - 3; // "}\n plus closing quote
            line += QByteArray(pad, 'x') + "\"}\n";
            Q_ASSERT(line.size() == lineLength);
            f.write(line);
        }
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void appendAndReadBack()
    {
        const QString path = m_dir.filePath(QStringLiteral("sub/dir/audit.jsonl"));
        AuditLog log(nullptr);
        log.setPath(path);
        QCOMPARE(log.path(), path);
        for (int i = 0; i < 3; ++i) {
            const QString error
                = log.append(QJsonObject{{QStringLiteral("action"), QStringLiteral("lock.release")},
                                         {QStringLiteral("n"), i}},
                             false);
            QVERIFY2(error.isEmpty(), qPrintable(error));
        }
        const QList<QJsonObject> all = AuditLog::readTail(path);
        QCOMPARE(all.size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(all.at(i).value(QLatin1String("n")).toInt(), i);
            QCOMPARE(all.at(i).value(QLatin1String("action")).toString(),
                     QStringLiteral("lock.release"));
        }
        const QList<QJsonObject> last2 = AuditLog::readTail(path, 2);
        QCOMPARE(last2.size(), 2);
        QCOMPARE(last2.first().value(QLatin1String("n")).toInt(), 1);
        QCOMPARE(last2.last().value(QLatin1String("n")).toInt(), 2);
    }

    void appendFailureIsReported()
    {
        AuditLog log(nullptr);
        log.setPath(m_dir.path()); // a directory cannot be opened for appending
        QVERIFY(!log.append(QJsonObject{{QStringLiteral("n"), 1}}, false).isEmpty());
    }

    void missingFileIsEmpty()
    {
        QVERIFY(AuditLog::readTail(m_dir.filePath(QStringLiteral("none.jsonl"))).isEmpty());
    }

    void tailOfLargeFile_data()
    {
        QTest::addColumn<int>("lineLength");
        QTest::addColumn<bool>("cutFirstLine");
        // 2^20 % 100 != 0: the tail starts inside a line, which is skipped.
        QTest::newRow("cut first line") << 100 << true;
        // 2^20 % 128 == 0: the tail starts exactly at a line, which is kept.
        QTest::newRow("on a line boundary") << 128 << false;
    }

    void tailOfLargeFile()
    {
        QFETCH(int, lineLength);
        QFETCH(bool, cutFirstLine);
        const int count = 5 * 1024 * 1024 / lineLength + 1; // just over 5 MiB
        const QString path = writeFixedLines(QStringLiteral("big.jsonl"), count, lineLength);
        QVERIFY(!path.isEmpty());
        QVERIFY(QFileInfo(path).size() > 5 * 1024 * 1024);

        // More entries asked than fit in 1 MiB: the byte bound decides.
        const QList<QJsonObject> entries = AuditLog::readTail(path, 1000000);
        const int inTail = int(AuditLog::TailBytes / lineLength); // whole lines only
        QCOMPARE(entries.size(), inTail);
        QCOMPARE(bool(AuditLog::TailBytes % lineLength), cutFirstLine);
        // The newest, in order, without gaps.
        for (int i = 0; i < entries.size(); ++i)
            QCOMPARE(entries.at(i).value(QLatin1String("n")).toInt(), count - inTail + i);

        // Fewer asked: the newest maxEntries.
        const QList<QJsonObject> last = AuditLog::readTail(path, 500);
        QCOMPARE(last.size(), 500);
        QCOMPARE(last.first().value(QLatin1String("n")).toInt(), count - 500);
        QCOMPARE(last.last().value(QLatin1String("n")).toInt(), count - 1);
    }

    void malformedLinesSkipped()
    {
        const QString path = m_dir.filePath(QStringLiteral("malformed.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"n\":1}\n"
                "not json\n"
                "[1,2,3]\n"
                "\n"
                "{\"n\":2, broken\n"
                "{\"n\":3}\n"
                "{\"n\":4"); // a half-written last line
        f.close();
        const QList<QJsonObject> entries = AuditLog::readTail(path);
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).value(QLatin1String("n")).toInt(), 1);
        QCOMPARE(entries.at(1).value(QLatin1String("n")).toInt(), 3);
    }

    void asyncDeliversOnCallersThread()
    {
        const QString path = writeFixedLines(QStringLiteral("async.jsonl"), 50, 64);
        QObject context;
        bool called = false;
        QThread *deliveredOn = nullptr;
        QList<QJsonObject> got;
        AuditLog::readTailAsync(path, 10, &context, [&](QList<QJsonObject> entries) {
            called = true;
            deliveredOn = QThread::currentThread();
            got = std::move(entries);
        });
        QVERIFY(!called); // never synchronously
        QTRY_VERIFY(called);
        QCOMPARE(deliveredOn, QThread::currentThread());
        QCOMPARE(got.size(), 10);
        QCOMPARE(got.last().value(QLatin1String("n")).toInt(), 49);
    }

    void asyncDroppedWhenContextDies()
    {
        const QString path = writeFixedLines(QStringLiteral("async2.jsonl"), 50, 64);
        bool called = false;
        auto *context = new QObject;
        AuditLog::readTailAsync(path, 10, context, [&](QList<QJsonObject>) { called = true; });
        delete context;
        QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
        // Let the queued delivery (if any) run.
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QVERIFY(!called);
    }
};

QTEST_GUILESS_MAIN(tst_AuditLog)
#include "tst_auditlog.moc"
