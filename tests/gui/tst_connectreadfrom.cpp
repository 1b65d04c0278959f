// SPDX-License-Identifier: MIT
// The Connect dialog's "Read from" choice beside the URL: enabled only where
// replicas can be read (a Sentinel URL, a redis:// address that may be a
// Cluster node; not a unix socket), explained in its tooltip, saved with the
// connection as the flag spells it, and passed on exactly as --read-from
// replicas: against a real master and replica (REPLICAOF, under three
// sentinels) the monitor started from the dialog's endpoint reads from the
// replica (the object's node says so; the replica's SCAN counter grows and
// the master's stays at zero), and with "master" it reads the master; a
// six-node Cluster given by one master's redis:// address is followed, and
// each master is read through its replica.
#include <connectiondialog.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <redis/redisclient.h>

#include "rediscluster.h"
#include "redissentinel.h"

#include <redis/hashslot.h>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::RedisCluster;
using gatehouse::test::RedisSentinel;
using gatehouse::test::RedisServer;

namespace {

qint64 scanCalls(const QByteArray &commandStats)
{
    static const QRegularExpression s_scan(QStringLiteral("cmdstat_scan:calls=(\\d+)"));
    const auto m = s_scan.match(QString::fromUtf8(commandStats));
    return m.hasMatch() ? m.captured(1).toLongLong() : 0;
}

} // namespace

class tst_ConnectReadFrom : public QObject
{
    Q_OBJECT

private:
    QComboBox *readFrom(ConnectionDialog &d)
    {
        return d.findChild<QComboBox *>(QStringLiteral("readFrom"));
    }

    void setUrl(ConnectionDialog &d, const QString &url)
    {
        ConnectionSettings c = d.settings();
        c.url = url;
        d.setSettings(c);
    }

    // Starts a monitor from the dialog's endpoint, as the console does after
    // Connect; waits until it has read the planted lock; heldBy of the lock.
    QString heldByThroughDialog(const QString &url, bool replicas, const QByteArray &key)
    {
        ConnectionDialog dialog;
        setUrl(dialog, url);
        QComboBox *combo = readFrom(dialog);
        if (!combo || !combo->isEnabled())
            return QStringLiteral("(read-from choice missing or disabled)");
        // Chosen as a user does: focus the combo and pick with the keyboard.
        combo->setFocus();
        QTest::keyClick(combo, replicas ? Qt::Key_End : Qt::Key_Home);
        if (combo->currentText()
            != (replicas ? QLatin1String("replicas") : QLatin1String("master")))
            return QStringLiteral("(combo shows %1)").arg(combo->currentText());
        const auto ep = dialog.endpoint();
        if (!ep || ep->readFromReplicas != replicas)
            return QStringLiteral("(endpoint does not carry the choice)");
        RedisClient client(*ep);
        client.open();
        if (!gatehouse::test::waitReady(client, 20000))
            return QStringLiteral("(not ready)");
        Monitor::Options options;
        QString error;
        options.profile = Profile::load(QStringLiteral("demo"), &error);
        options.intervalMs = 300;
        Monitor monitor(&client, options);
        monitor.start();
        QString held;
        gatehouse::test::waitUntil(
            [&] {
                const Snapshot s = monitor.snapshot();
                bool found = false;
                for (const ObjectState &o : s.objects)
                    found |= o.object->key == key;
                held = found ? s.server.heldBy(key) : QString();
                return found && (!replicas || held.contains(QLatin1String("read from replica")));
            },
            30000);
        return held;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("GatehouseReadFromTest"));
        QSettings().clear();
    }

    void cleanupTestCase()
    {
        QSettings().clear();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void enabledWhereReplicasCanBeRead_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<QString>("tip");
        QTest::newRow("sentinel") << "redis-sentinel://127.0.0.1:26379#mymaster" << true
                                  << "master's replicas";
        QTest::newRow("tls sentinel")
            << "rediss-sentinel://h:26379,h:26380#m" << true << "master's replicas";
        QTest::newRow("maybe a cluster node")
            << "redis://127.0.0.1:7000" << true << "if this server is a Cluster node";
        QTest::newRow("unix socket")
            << "unix:///run/redis.sock" << false << "no replicas to read from";
        QTest::newRow("invalid") << "redis://h:99999" << false << "valid URL first";
    }

    void enabledWhereReplicasCanBeRead()
    {
        QFETCH(QString, url);
        QFETCH(bool, enabled);
        QFETCH(QString, tip);
        ConnectionDialog dialog;
        ConnectionSettings c;
        c.url = url;
        c.readFromReplicas = true;
        dialog.setSettings(c);
        QComboBox *combo = readFrom(dialog);
        QVERIFY(combo);
        QCOMPARE(combo->isEnabled(), enabled);
        QVERIFY2(combo->toolTip().contains(tip), qPrintable(combo->toolTip()));
        // A disabled choice is not passed on.
        QCOMPARE(dialog.settings().readFromReplicas, enabled);
        if (enabled)
            QVERIFY(dialog.endpoint()->readFromReplicas);
    }

    // Saved with the connection, as the flag spells it; a new dialog opening
    // the saved connection shows it again.
    void savedWithTheConnection()
    {
        ConnectionDialog dialog;
        ConnectionSettings c;
        c.name = QStringLiteral("sentinels");
        c.url = QStringLiteral("redis-sentinel://10.0.0.1:26379#orders");
        dialog.setSettings(c);
        QComboBox *combo = readFrom(dialog);
        combo->setCurrentIndex(combo->findText(QStringLiteral("replicas")));
        QAbstractButton *save = nullptr;
        for (QAbstractButton *b : dialog.findChild<QDialogButtonBox *>()->buttons()) {
            if (b->text() == QLatin1String("&Save"))
                save = b;
        }
        QVERIFY(save && save->isEnabled());
        save->click();
        const QList<ConnectionSettings> saved = ConnectionStore::saved();
        QCOMPARE(saved.size(), 1);
        QVERIFY(saved.first().readFromReplicas);
        QSettings settings;
        settings.beginGroup(QStringLiteral("connections"));
        settings.beginGroup(settings.childGroups().value(0));
        QCOMPARE(settings.value(QStringLiteral("readFrom")).toString(), QStringLiteral("replicas"));
        ConnectionDialog again;
        again.setSettings(saved.first());
        QCOMPARE(readFrom(again)->currentText(), QStringLiteral("replicas"));
        ConnectionStore::remove(c.name);
    }

    // A real master and its replica: "replicas" makes the monitor read the
    // replica, "master" the master.
    void monitorReadsTheReplica()
    {
        RedisSentinel set(1, QStringLiteral("readfrom"));
        QVERIFY2(set.start(), qPrintable(set.errorString()));
        const int master = set.currentMaster();
        QVERIFY(master >= 0);
        const int replica = 1 - master;
        QCOMPARE(set.cli(set.node(master).port(),
                         {QStringLiteral("SET"), QStringLiteral("sim:lock:readfrom"),
                          QStringLiteral("t0k3nr34df40m"), QStringLiteral("PX"),
                          QStringLiteral("600000")}),
                 QByteArray("OK"));
        QCOMPARE(set.cli(set.node(master).port(),
                         {QStringLiteral("WAIT"), QStringLiteral("1"), QStringLiteral("5000")}),
                 QByteArray("1"));
        for (int i : {master, replica})
            QCOMPARE(set.cli(set.node(i).port(),
                             {QStringLiteral("CONFIG"), QStringLiteral("RESETSTAT")}),
                     QByteArray("OK"));

        const QString held = heldByThroughDialog(set.url(), true, "sim:lock:readfrom");
        QVERIFY2(
            held.contains(QStringLiteral("read from replica %1").arg(set.nodeAddress(replica))),
            qPrintable(held));
        const auto stats = [&](int i) {
            return set.cli(set.node(i).port(),
                           {QStringLiteral("INFO"), QStringLiteral("commandstats")});
        };
        QVERIFY2(scanCalls(stats(replica)) > 0, stats(replica).constData());
        QCOMPARE(scanCalls(stats(master)), 0);

        const QString fromMaster = heldByThroughDialog(set.url(), false, "sim:lock:readfrom");
        QCOMPARE(fromMaster, QStringLiteral("held by %1 (master)").arg(set.nodeAddress(master)));
        QVERIFY(scanCalls(stats(master)) > 0);
    }

    // A six-node Cluster given by one master's redis:// address: the dialog's
    // endpoint follows the Cluster (as --url does), and "replicas" has the
    // lock's master read through its replica; the masters scan nothing.
    void clusterReadsReplicas()
    {
        RedisCluster cluster;
        QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
        const QByteArray key = "sim:lock:readfrom:cluster";
        const int owner = cluster.masterOf(keyHashSlot(key));
        QVERIFY(owner >= 0);
        QCOMPARE(cluster
                     .cli(owner, {QStringLiteral("SET"), QString::fromLatin1(key),
                                  QStringLiteral("t0k3nr34df40m"), QStringLiteral("PX"),
                                  QStringLiteral("600000")})
                     .trimmed(),
                 QByteArray("OK"));
        QVERIFY(gatehouse::test::waitUntil([&] { return cluster.replicasInSync(); }, 20000));
        for (int i = 0; i < cluster.size(); ++i)
            QCOMPARE(
                cluster.cli(i, {QStringLiteral("CONFIG"), QStringLiteral("RESETSTAT")}).trimmed(),
                QByteArray("OK"));
        // Given another master's address: the Cluster is found from it.
        int seed = -1;
        for (int m : cluster.masters()) {
            if (m != owner)
                seed = m;
        }
        const QString held = heldByThroughDialog(cluster.url(seed), true, key);
        static const QRegularExpression s_replica(
            QStringLiteral("^held by (\\S+) \\(master, .*read from replica (\\S+)$"));
        const auto m = s_replica.match(held);
        QVERIFY2(m.hasMatch(), qPrintable(held));
        QCOMPARE(m.captured(1), cluster.address(owner));
        const int replica = cluster.indexOfPort(quint16(m.captured(2).section(':', 1).toUInt()));
        QVERIFY(replica >= 0 && !cluster.masters().contains(replica));
        const auto stats = [&](int i) {
            return cluster.cli(i, {QStringLiteral("INFO"), QStringLiteral("commandstats")});
        };
        QVERIFY2(scanCalls(stats(replica)) > 0, stats(replica).constData());
        for (int master : cluster.masters())
            QCOMPARE(scanCalls(stats(master)), 0);
    }
};

QTEST_MAIN(tst_ConnectReadFrom)
#include "tst_connectreadfrom.moc"
