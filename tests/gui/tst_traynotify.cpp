// SPDX-License-Identifier: MIT
// The console's desktop notification of an alert, for real: the gatehouse
// binary in a real X server (Xvfb, the xcb platform) on a private session
// bus (dbus-daemon) where this test plays the desktop: a panel's
// org.kde.StatusNotifierWatcher with a host registered, so Qt's tray is the
// D-Bus one (StatusNotifierItem), and org.freedesktop.Notifications, which
// records what QSystemTrayIcon::showMessage sends; then a desktop without
// the watcher (GNOME's), where the console notifies the server itself. A
// real redis-server with a sliding-window limiter driven over an alert
// rule's threshold: exactly one notification for the firing (the rule's
// name in its summary), one for the resolution once the window drains, none
// repeated. Asking whether a tray is there blocks the console's GUI thread
// (Qt asks the X server for an XEmbed tray, and the session bus for a
// StatusNotifierWatcher): without a tray, alert transitions do not ask again
// (the console's own debug line for each question, and the questions seen on
// the bus by a dbus-monitor, are counted). Every process the test starts is
// stopped.
#include "redisserver.h"

#include <redis/redisclient.h>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

const QString s_watcherService = QStringLiteral("org.kde.StatusNotifierWatcher");
const QString s_notificationsService = QStringLiteral("org.freedesktop.Notifications");
const QString s_ruleName = QStringLiteral("Checkout limiter full");
const QByteArray s_key = "nt:rl:checkout";

} // namespace

// A desktop panel's StatusNotifierWatcher: a host (the panel) is registered,
// items register themselves. Qt's generic Unix theme on xcb makes its tray a
// QDBusTrayIcon only when IsStatusNotifierHostRegistered reads true here
// (QDBusMenuConnection's constructor asks; qgenericunixthemes.cpp,
// shouldUseDBusTray()).
class FakeWatcher : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.kde.StatusNotifierWatcher")
    Q_PROPERTY(bool IsStatusNotifierHostRegistered READ isHostRegistered)
    Q_PROPERTY(QStringList RegisteredStatusNotifierItems READ items)
    Q_PROPERTY(int ProtocolVersion READ protocolVersion)

public:
    bool isHostRegistered() const { return true; }
    QStringList items() const { return m_items; }
    int protocolVersion() const { return 0; }
    void clear() { m_items.clear(); }

public Q_SLOTS:
    void RegisterStatusNotifierItem(const QString &service) { m_items << service; }
    void RegisterStatusNotifierHost(const QString &) {}

private:
    QStringList m_items;
};

// The desktop's notification server: records every Notify.
class FakeNotifications : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")

public:
    struct Shown
    {
        QString app;
        QString summary;
        QString body;
        int urgency = -1; // hints["urgency"]: 0 low, 1 normal, 2 critical
    };
    QList<Shown> shown;

public Q_SLOTS:
    uint Notify(const QString &app, uint, const QString &, const QString &summary,
                const QString &body, const QStringList &, const QVariantMap &hints, int)
    {
        shown.append({app, summary, body, hints.value(QStringLiteral("urgency"), -1).toInt()});
        return uint(shown.size());
    }
    QStringList GetCapabilities() { return {QStringLiteral("body"), QStringLiteral("actions")}; }
    void CloseNotification(uint) {}
    QString GetServerInformation(QString &vendor, QString &version, QString &specVersion)
    {
        vendor = QStringLiteral("Gatehouse tests");
        version = QStringLiteral("1");
        specVersion = QStringLiteral("1.2");
        return QStringLiteral("tst_traynotify");
    }
};

class tst_TrayNotify : public QObject
{
    Q_OBJECT

private:
    RedisServer m_server;
    std::unique_ptr<RedisClient> m_redis;
    QTemporaryDir m_dir;
    QProcess m_bus;  // dbus-daemon --session
    QProcess m_xvfb; // Xvfb
    QProcess m_console;
    QString m_consoleErr;  // what the console wrote to stderr so far
    QProcess m_busMonitor; // dbus-monitor: questions about the tray on the bus
    QByteArray m_monitored;
    QString m_busAddress;
    QString m_display;
    FakeWatcher m_watcher;
    FakeNotifications m_notifications;

    // The first line a process writes to stdout (an address, a display
    // number), within timeoutMs.
    static QString firstLine(QProcess &p, int timeoutMs)
    {
        QByteArray out;
        const bool got = QTest::qWaitFor(
            [&] {
                out += p.readAllStandardOutput();
                return out.contains('\n') || p.state() == QProcess::NotRunning;
            },
            timeoutMs);
        return got ? QString::fromUtf8(out.left(out.indexOf('\n'))).trimmed() : QString();
    }

    static void stop(QProcess &p)
    {
        if (p.state() == QProcess::NotRunning)
            return;
        p.terminate();
        if (!p.waitForFinished(10000)) {
            p.kill();
            p.waitForFinished(5000);
        }
    }

    QString consoleOutput()
    {
        m_consoleErr += QString::fromUtf8(m_console.readAllStandardError());
        return m_consoleErr;
    }

    // The console's questions whether a tray is there so far (its
    // gatehouse.tray debug line for each).
    int trayQuestions()
    {
        return int(consoleOutput().count(QLatin1String("asked whether a system tray is there")));
    }

    // The same questions as seen on the bus: whether the panel's watcher has
    // an owner, and any call to the watcher (Qt's D-Bus tray; Qt 6.4's
    // generic theme asks once per process, other themes at every question).
    int busTrayQuestions()
    {
        m_monitored += m_busMonitor.readAllStandardOutput();
        int n = 0;
        for (const QByteArray &line : m_monitored.split('\n')) {
            if (line.startsWith("mc\t"))
                ++n;
        }
        return n;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
        m_redis = gatehouse::test::connectedClient(m_server);
        QVERIFY(m_redis);

        // A session bus of our own, its socket in the test's directory.
        m_bus.start(
            QStringLiteral(GATEHOUSE_DBUS_DAEMON),
            {QStringLiteral("--session"), QStringLiteral("--nofork"), QStringLiteral("--nopidfile"),
             QStringLiteral("--print-address=1"),
             QStringLiteral("--address=unix:path=") + m_dir.filePath(QStringLiteral("bus"))});
        QVERIFY2(m_bus.waitForStarted(), qPrintable(m_bus.errorString()));
        m_busAddress = firstLine(m_bus, 10000);
        QVERIFY2(!m_busAddress.isEmpty(), m_bus.readAllStandardError().constData());

        QDBusConnection bus
            = QDBusConnection::connectToBus(m_busAddress, QStringLiteral("desktop"));
        QVERIFY2(bus.isConnected(), qPrintable(bus.lastError().message()));
        QVERIFY(bus.registerObject(QStringLiteral("/StatusNotifierWatcher"), &m_watcher,
                                   QDBusConnection::ExportAllSlots
                                       | QDBusConnection::ExportAllProperties));
        QVERIFY(bus.registerObject(QStringLiteral("/org/freedesktop/Notifications"),
                                   &m_notifications, QDBusConnection::ExportAllSlots));
        QVERIFY(bus.registerService(s_notificationsService));

        // A monitor of the bus (dbus-monitor --profile: one line a message,
        // "mc" for a method call) for the questions about the tray.
        m_busMonitor.start(
            QStringLiteral(GATEHOUSE_DBUS_MONITOR),
            {QStringLiteral("--address"), m_busAddress, QStringLiteral("--profile"),
             QStringLiteral("type='method_call',interface='org.freedesktop.DBus',member='"
                            "NameHasOwner',arg0='%1'")
                 .arg(s_watcherService),
             QStringLiteral("type='method_call',interface='org.freedesktop.DBus',member='"
                            "GetNameOwner',arg0='%1'")
                 .arg(s_watcherService),
             QStringLiteral("type='method_call',destination='%1'").arg(s_watcherService)});
        QVERIFY2(m_busMonitor.waitForStarted(), qPrintable(m_busMonitor.errorString()));
        QVERIFY2(!firstLine(m_busMonitor, 10000).isEmpty(), // its header once it monitors
                 m_busMonitor.readAllStandardError().constData());

        // A real X server: its display number on stdout (-displayfd 1).
        m_xvfb.start(QStringLiteral(GATEHOUSE_XVFB),
                     {QStringLiteral("-displayfd"), QStringLiteral("1"), QStringLiteral("-screen"),
                      QStringLiteral("0"), QStringLiteral("1280x800x24"),
                      QStringLiteral("-nolisten"), QStringLiteral("tcp")});
        QVERIFY2(m_xvfb.waitForStarted(), qPrintable(m_xvfb.errorString()));
        m_display = firstLine(m_xvfb, 20000);
        QVERIFY2(!m_display.isEmpty(), m_xvfb.readAllStandardError().constData());
    }

    void cleanupTestCase()
    {
        stop(m_console);
        stop(m_busMonitor);
        m_redis.reset();
        QDBusConnection::disconnectFromBus(QStringLiteral("desktop"));
        stop(m_xvfb);
        stop(m_bus);
        m_server.stop();
        QCOMPARE(RedisServer::runningChildren(), 0);
    }

    void init()
    {
        QCOMPARE(call(*m_redis, {"FLUSHALL"}), RedisValue::status("OK"));
        m_watcher.clear();
        m_notifications.shown.clear();
        m_consoleErr.clear();
    }

    void cleanup() { stop(m_console); }

    // A panel with a tray (KDE Plasma, LXQt, GNOME with AppIndicator):
    // QSystemTrayIcon's own notifications.
    void firingAndResolutionNotifyOnceThroughTheTray()
    {
        QVERIFY(QDBusConnection(QStringLiteral("desktop")).registerService(s_watcherService));
        QVERIFY(startConsole());
        // The console's tray icon registers with the panel: Qt took the
        // D-Bus tray (a StatusNotifierItem on its own bus connection).
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return !m_watcher.items().isEmpty()
                                || m_console.state() == QProcess::NotRunning;
                     },
                     60000)
                     && !m_watcher.items().isEmpty(),
                 qPrintable(QStringLiteral("no tray icon registered; the console said: ")
                            + consoleOutput()));
        QVERIFY(m_notifications.shown.isEmpty());
        driveOverAndBack();
    }

    // No tray (GNOME as it ships, on X11 or Wayland): the notifications go
    // straight to the desktop's notification server.
    void firingAndResolutionNotifyOnceWithoutATray()
    {
        QDBusConnection(QStringLiteral("desktop")).unregisterService(s_watcherService);
        QVERIFY(startConsole());
        QTest::qWait(3000); // started and reading, with no tray to register with
        QVERIFY(m_console.state() == QProcess::Running);
        QVERIFY(m_notifications.shown.isEmpty());
        // Asked once at start (the icon from the start when a tray is there),
        // not again for the transitions within the next minute.
        QCOMPARE(trayQuestions(), 1);
        const int onBusAtStart = busTrayQuestions();
        driveOverAndBack();
        QVERIFY(m_watcher.items().isEmpty());
        QCOMPARE(trayQuestions(), 1);
        QTest::qWait(500); // the monitor's last lines
        QVERIFY2(busTrayQuestions() == onBusAtStart,
                 qPrintable(QStringLiteral("%1 questions about the tray on the bus for 2 alert "
                                           "transitions")
                                .arg(busTrayQuestions() - onBusAtStart)));
    }

private:
    // The console against the test's server, X display and bus, with a
    // profile whose rule watches nt:rl:* (a 2 s window of 10) for 80 %
    // held 1 s.
    bool startConsole()
    {
        const QString profile = m_dir.filePath(QStringLiteral("profile.json"));
        QFile f(profile);
        if (!f.open(QIODevice::WriteOnly))
            return false;
        f.write(R"({"name": "tray-test",
            "rules": [{"pattern": "sliding-window", "match": "nt:rl:*", "limit": 10,
                       "window": 2000}],
            "alerts": [{"name": ")"
                + s_ruleName.toUtf8() + R"(", "target": "limiter", "match": "nt:rl:*",
                        "figure": "occupancy", "op": ">=", "threshold": "80%",
                        "for": "1s", "severity": "warning"}]})");
        f.close();
        // The limiter is there before the console's first scan.
        if (call(*m_redis,
                 {"ZADD", s_key, QByteArray::number(QDateTime::currentMSecsSinceEpoch()), "r0"})
                .toInteger()
            != 1)
            return false;

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
        env.insert(QStringLiteral("DISPLAY"), QLatin1Char(':') + m_display);
        env.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), m_busAddress);
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("gatehouse.tray.debug=true"));
        // Qt's generic theme, whatever desktop the tests run from; settings,
        // the audit log and runtime files in the test's directory.
        for (const char *name : {"XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION",
                                 "KDE_FULL_SESSION", "QT_QPA_PLATFORMTHEME", "WAYLAND_DISPLAY"})
            env.remove(QLatin1String(name));
        for (const char *name :
             {"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"}) {
            const QString path = m_dir.filePath(QString::fromLatin1(name).toLower());
            if (!QDir().mkpath(path))
                return false;
            QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
            env.insert(QLatin1String(name), path);
        }
        m_console.setProcessEnvironment(env);
        m_console.start(QStringLiteral(GATEHOUSE_GUI),
                        {QStringLiteral("--url"), m_server.url(), QStringLiteral("--profile"),
                         profile, QStringLiteral("--no-history"), QStringLiteral("--interval"),
                         QStringLiteral("200"), QStringLiteral("--palette"),
                         QStringLiteral("light")});
        return m_console.waitForStarted();
    }

    // Requests at 10 a second into the 2 s window of 10 (about 200 %) until
    // the firing is notified and 2.5 s more, then none: exactly one
    // notification for the firing, one for the resolution; then the console
    // quits on SIGTERM.
    void driveOverAndBack()
    {
        int sent = 1;
        QTimer traffic;
        traffic.setInterval(100);
        connect(&traffic, &QTimer::timeout, this, [&] {
            m_redis->command({"ZADD", s_key,
                              QByteArray::number(QDateTime::currentMSecsSinceEpoch()),
                              "r" + QByteArray::number(sent++)},
                             this, [](const RedisValue &) {});
        });
        traffic.start();
        QVERIFY2(QTest::qWaitFor([&] { return !m_notifications.shown.isEmpty(); }, 30000),
                 qPrintable(QStringLiteral("no notification of the firing; the console said: ")
                            + consoleOutput()));
        const FakeNotifications::Shown fired = m_notifications.shown.first();
        QCOMPARE(fired.app, QStringLiteral("gatehouse"));
        QVERIFY2(fired.summary.contains(s_ruleName), qPrintable(fired.summary));
        QVERIFY2(fired.body.contains(QString::fromUtf8(s_key)), qPrintable(fired.body));
        QVERIFY2(fired.body.contains(QLatin1String("FIRING")), qPrintable(fired.body));
        QCOMPARE(fired.urgency, 1); // a warning: normal

        // Still over the threshold, reading after reading: said once.
        QTest::qWait(2500);
        QCOMPARE(m_notifications.shown.size(), 1);

        // The traffic stops and the window drains: the resolution, once.
        traffic.stop();
        QVERIFY2(QTest::qWaitFor([&] { return m_notifications.shown.size() >= 2; }, 20000),
                 qPrintable(QStringLiteral("no notification of the resolution; the console "
                                           "said: ")
                            + consoleOutput()));
        const FakeNotifications::Shown resolved = m_notifications.shown.at(1);
        QCOMPARE(resolved.app, QStringLiteral("gatehouse"));
        QVERIFY2(resolved.summary.contains(s_ruleName), qPrintable(resolved.summary));
        QVERIFY2(resolved.summary.contains(QLatin1String("resolved")),
                 qPrintable(resolved.summary));
        QVERIFY2(resolved.body.contains(QString::fromUtf8(s_key)), qPrintable(resolved.body));
        QVERIFY2(resolved.body.contains(QLatin1String("RESOLVED")), qPrintable(resolved.body));
        QVERIFY2(resolved.urgency < fired.urgency, qPrintable(QString::number(resolved.urgency)));
        QTest::qWait(3000);
        QCOMPARE(m_notifications.shown.size(), 2);

        // Quits like File > Quit on SIGTERM.
        m_console.terminate();
        QVERIFY2(m_console.waitForFinished(20000), "the console did not quit on SIGTERM");
        QCOMPARE(m_console.exitStatus(), QProcess::NormalExit);
        QCOMPARE(m_console.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(tst_TrayNotify)
#include "tst_traynotify.moc"
