// SPDX-License-Identifier: MIT
// Every pattern's demo traffic (PatternUnit::demoTraffic), as the simulator
// drives it: the same seed makes the same requests, another seed others, and
// every request stays under the run's prefix. Driven here tick by tick with
// the replies chosen by the test, so only the demo's own decisions vary.
#include <patterns/demotraffic.h>
#include <patterns/patternregistry.h>
#include <patterns/patternunit.h>

#include <QSet>
#include <QTest>

#include <map>

using namespace gatehouse;

namespace {

// Records what a demo asks for. Every request is answered at once with
// `reply` (an admitted request, a taken lock); scheduled actions run at the
// start of their tick, as in the simulator.
class RecordingDriver final : public DemoDriver
{
public:
    explicit RecordingDriver(RedisValue reply, int scale = 2)
        : m_reply(std::move(reply))
        , m_scale(scale)
    {}

    void run(DemoTraffic &demo, int ticks)
    {
        for (int t = 0; t < ticks; ++t) {
            ++m_tick;
            while (!m_events.empty() && m_events.begin()->first <= m_tick) {
                auto action = std::move(m_events.begin()->second);
                m_events.erase(m_events.begin());
                action();
            }
            demo.tick(*this);
        }
        m_stopping = true;
        demo.stop(*this);
    }

    // "tick script-or-command key key ...", one line per request. Arguments
    // are left out: a legacy lock's value is the wall clock's time.
    QStringList requests;

    void send(const QString &script, QList<QByteArray> keys, QList<QByteArray> args,
              std::function<void(const RedisValue &)> onReply) override
    {
        Q_UNUSED(args)
        record(script, keys);
        if (onReply)
            onReply(m_reply);
    }
    void sendCommands(QList<QList<QByteArray>> commands) override
    {
        for (const QList<QByteArray> &c : commands)
            record(QString::fromUtf8(c.value(0)), c.mid(1, 1));
    }
    void sendCommand(QList<QByteArray> command,
                     std::function<void(const RedisValue &)> onReply) override
    {
        record(QString::fromUtf8(command.value(0)), command.mid(1, 1));
        if (onReply)
            onReply(m_reply);
    }
    void schedule(qint64 afterTicks, std::function<void()> action) override
    {
        m_events.emplace(m_tick + std::max<qint64>(1, afterTicks), std::move(action));
    }
    qint64 tick() const override { return m_tick; }
    int tickMs() const override { return 100; }
    int scale() const override { return m_scale; }
    double rate() const override { return 1.0; }
    const QByteArray &prefix() const override { return m_prefix; }
    bool stopping() const override { return m_stopping; }
    bool hashTags() const override { return false; }

private:
    void record(const QString &what, const QList<QByteArray> &keys)
    {
        QString line = QString::number(m_tick) + QLatin1Char(' ') + what;
        for (const QByteArray &k : keys)
            line += QLatin1Char(' ') + QString::fromUtf8(k);
        requests.append(line);
        for (const QByteArray &k : keys) {
            if (!k.startsWith(m_prefix) && !k.startsWith(QByteArray('{' + m_prefix)))
                outside.append(line);
        }
    }

public:
    QStringList outside; // requests naming a key outside the prefix

private:
    RedisValue m_reply;
    int m_scale;
    QByteArray m_prefix = "demo:";
    qint64 m_tick = 0;
    bool m_stopping = false;
    std::multimap<qint64, std::function<void()>> m_events;
};

QStringList drive(const PatternUnit &unit, quint32 seed, const RedisValue &reply,
                  QStringList *outside = nullptr)
{
    std::unique_ptr<DemoTraffic> demo = unit.demoTraffic(seed);
    RecordingDriver driver(reply);
    driver.run(*demo, 300); // 30 s of 100 ms ticks
    if (outside)
        *outside = driver.outside;
    return driver.requests;
}

} // namespace

class tst_DemoTraffic : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameSeedSameRequests_data()
    {
        QTest::addColumn<QString>("pattern");
        int demos = 0;
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            if (!unit->demoTraffic(1))
                continue;
            ++demos;
            QTest::newRow(qPrintable(unit->kind().id())) << unit->kind().id();
        }
        // The seed patterns and the semaphore bring their own traffic.
        QVERIFY2(demos >= 9, qPrintable(QString::number(demos)));
    }

    // A demo draws its decisions from its own stream: the same seed, the
    // same requests in the same ticks; another seed, other requests (unless
    // the demo has no random decisions at all); every key under the prefix.
    void sameSeedSameRequests()
    {
        QFETCH(QString, pattern);
        const PatternUnit *unit = nullptr;
        for (const PatternUnit *u : PatternRegistry::instance().units()) {
            if (u->kind().id() == pattern)
                unit = u;
        }
        QVERIFY(unit);
        // Taken or admitted, refused or empty, a job claimed.
        for (const RedisValue &reply :
             {RedisValue::integer(1), RedisValue::nil(), RedisValue::bulk("job-1")}) {
            QStringList outside;
            const QStringList first = drive(*unit, 7, reply, &outside);
            QVERIFY2(!first.isEmpty(), "no request in 30 s");
            QVERIFY2(outside.isEmpty(), qPrintable(outside.join(QLatin1Char('\n'))));
            const QStringList again = drive(*unit, 7, reply);
            QCOMPARE(again, first);
            const QStringList other = drive(*unit, 8, reply);
            if (other == first && drive(*unit, 9, reply) != first)
                QFAIL("seeds 7 and 8 made the same requests, seed 9 others");
        }
    }

    // Every instance the census checks is named under the prefix, once.
    void instancesUnderThePrefix()
    {
        for (const PatternUnit *unit : PatternRegistry::instance().units()) {
            std::unique_ptr<DemoTraffic> demo = unit->demoTraffic(1);
            if (!demo)
                continue;
            RecordingDriver driver(RedisValue::integer(1));
            QSet<QByteArray> seen;
            const QList<DemoTraffic::Instance> instances = demo->instances(driver);
            QVERIFY2(!instances.isEmpty() || !demo->families(driver).isEmpty(),
                     qPrintable(unit->kind().id()));
            for (const DemoTraffic::Instance &i : instances) {
                QVERIFY2(i.key.contains(driver.prefix()), i.key.constData());
                QVERIFY2(!seen.contains(i.key), i.key.constData());
                QVERIFY2(!i.keys.isEmpty(), i.key.constData());
                seen.insert(i.key);
            }
            for (const QByteArray &f : demo->families(driver))
                QVERIFY2(f.startsWith(driver.prefix()), f.constData());
        }
    }
};

QTEST_GUILESS_MAIN(tst_DemoTraffic)
#include "tst_demotraffic.moc"
