// SPDX-License-Identifier: MIT
// The history file with more than 8 figures per object (a library queue's
// counts and ages, then its wait and run quantiles and oldest waiting job).
#include <history/historystore.h>
#include <monitor/snapshot.h>
#include <patterns/patternregistry.h>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace gatehouse;

namespace {

// A Monday 00:00:00 UTC, server ms.
constexpr qint64 T0 = 1763942400000LL;

} // namespace

class tst_HistoryFigures : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A library queue keeps more than 8 figures (its counts and ages, then
    // the wait and run quantiles and the oldest waiting job): every one is
    // written and read back, a duration past the 8th growing as an age does.
    void libraryQueueKeepsEveryFigure()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("latency.sqlite"));
        const PatternKind bullmq{"bullmq"};
        const QList<Figure> figures = PatternUnit::of(bullmq).figures();
        QVERIFY(figures.size() > 8);
        QVERIFY(figures.size() <= HistoryFigures);
        HistoryStore store(path);
        QSignalSpy problems(&store, &HistoryStore::problem);
        store.open();
        for (int tick = 0; tick < 3; ++tick) {
            Snapshot snapshot;
            snapshot.server.timeMs = T0 + tick * 1000;
            ObjectState s;
            s.object.edit().kind = bullmq;
            s.object.edit().key = "bull:mail";
            s.reading.atMs = T0 + (tick == 2 ? 1000 : tick * 1000); // tick 2: not re-read
            s.reading.editQueue().length = 3;
            JobTimes &t = s.reading.latency();
            t.waitSamples = t.runSamples = 10;
            t.wait[1] = 2500 + tick;
            t.run[2] = 450;
            t.oldestWaitingAgeMs = 4000;
            snapshot.objects.append(s);
            store.append(snapshot);
        }
        store.flush();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).value(0).toString()));
        QString error;
        const auto r = HistoryStore::read(path, "bull:mail", T0, T0 + 3000, &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->times.size(), 3);
        QCOMPARE(r->values.size(), figures.size());
        const auto index = [&](const char *id) {
            for (qsizetype f = 0; f < figures.size(); ++f) {
                if (figures.at(f).id == QLatin1String(id))
                    return int(f);
            }
            return -1;
        };
        QVERIFY(index("waitP95") >= 8);
        QCOMPARE(r->values.at(index("waitP95")).at(0), 2500.0f);
        QCOMPARE(r->values.at(index("waitP95")).at(1), 2501.0f);
        QCOMPARE(r->values.at(index("runP99")).at(2), 450.0f);
        // Not re-read at the third tick: the oldest waiting job is 1 s older.
        QCOMPARE(r->values.at(index("oldestWaitingAgeMs")).at(1), 4000.0f);
        QCOMPARE(r->values.at(index("oldestWaitingAgeMs")).at(2), 5000.0f);
        QVERIFY(std::isnan(r->values.at(index("waitP50")).at(0))); // no sample: unknown
    }
};

QTEST_GUILESS_MAIN(tst_HistoryFigures)
#include "tst_historyfigures.moc"
