// SPDX-License-Identifier: MIT
// The connection dialog: validated as typed, saved without the password,
// recent URLs remembered under a heading, labels without stray ampersands,
// and a Test button answered by a real redis-server.
#include <connectiondialog.h>
#include <redisserver.h>

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace gatehouse;

class tst_ConnectionDialog : public QObject
{
    Q_OBJECT

private:
    QLineEdit *field(ConnectionDialog &d, int index)
    {
        return d.findChildren<QLineEdit *>().at(index);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // settings in a test location
        QCoreApplication::setOrganizationName(QStringLiteral("GatehouseTest"));
        QSettings().clear();
    }

    void cleanupTestCase() { QSettings().clear(); }

    void validation_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("ca");
        QTest::addColumn<QString>("cert");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("plain") << "redis://127.0.0.1:6380/2"
                               << ""
                               << "" << true << "";
        QTest::newRow("unix") << "unix:///run/redis.sock"
                              << ""
                              << "" << true << "";
        QTest::newRow("bad scheme") << "http://x"
                                    << ""
                                    << "" << false << "http";
        QTest::newRow("bad port") << "redis://h:99999"
                                  << ""
                                  << "" << false << "port";
        QTest::newRow("missing CA") << "rediss://h:6380"
                                    << "/nonexistent/ca.pem"
                                    << "" << false << "CA certificate";
        QTest::newRow("cert without key") << "redis://h:6380"
                                          << ""
                                          << "CERT" << false << "key";
    }

    void validation()
    {
        QFETCH(QString, url);
        QFETCH(QString, ca);
        QFETCH(QString, cert);
        QFETCH(bool, ok);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        ConnectionDialog dialog;
        ConnectionSettings c;
        c.url = url;
        c.caFile = ca;
        if (cert == QLatin1String("CERT")) {
            c.certFile = dir.filePath(QStringLiteral("cert.pem"));
            QFile f(c.certFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        dialog.setSettings(c);
        QCOMPARE(dialog.canConnect(), ok);
        if (!ok)
            QVERIFY2(dialog.validationMessage().contains(mentions, Qt::CaseInsensitive),
                     qPrintable(dialog.validationMessage()));
    }

    void endpointFromFields()
    {
        ConnectionDialog dialog;
        ConnectionSettings c;
        c.url = QStringLiteral("redis://db.example:6390/3");
        c.user = QStringLiteral("ops");
        c.insecure = true;
        dialog.setSettings(c);
        dialog.findChild<QLineEdit *>(QStringLiteral("password"))
            ->setText(QStringLiteral("s3cret")); // password
        const auto ep = dialog.endpoint();
        QVERIFY(ep);
        QCOMPARE(ep->host, QStringLiteral("db.example"));
        QCOMPARE(ep->port, quint16(6390));
        QCOMPARE(ep->db, 3);
        QCOMPARE(ep->user, QStringLiteral("ops"));
        QCOMPARE(ep->password, QStringLiteral("s3cret"));
        QCOMPARE(ep->transport, RedisEndpoint::Transport::Tls);
        QVERIFY(!ep->verifyPeer);
    }

    // Saved connections keep everything but the password.
    void savedWithoutPassword()
    {
        ConnectionDialog dialog;
        ConnectionSettings c;
        c.name = QStringLiteral("prod eu");
        c.url = QStringLiteral("redis://10.0.0.5:6379");
        c.profile = QStringLiteral("demo");
        c.readOnly = true;
        dialog.setSettings(c);
        dialog.findChild<QLineEdit *>(QStringLiteral("password"))
            ->setText(QStringLiteral("hunter2"));
        QAbstractButton *save = nullptr;
        for (QAbstractButton *b : dialog.findChild<QDialogButtonBox *>()->buttons()) {
            if (b->text() == QLatin1String("&Save"))
                save = b;
        }
        QVERIFY(save && save->isEnabled());
        save->click();

        const QList<ConnectionSettings> saved = ConnectionStore::saved();
        QCOMPARE(saved.size(), 1);
        QCOMPARE(saved.first().name, QStringLiteral("prod eu"));
        QCOMPARE(saved.first().url, QStringLiteral("redis://10.0.0.5:6379"));
        QCOMPARE(saved.first().profile, QStringLiteral("demo"));
        QVERIFY(saved.first().readOnly);
        QSettings settings;
        QFile file(settings.fileName());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("hunter2"));

        // A new dialog lists it; deleting removes it.
        ConnectionDialog again;
        auto *list = again.findChild<QListWidget *>();
        QCOMPARE(list->item(0)->text(), QStringLiteral("Saved connections"));
        QVERIFY(!(list->item(0)->flags() & Qt::ItemIsSelectable)); // a heading
        QCOMPARE(list->item(1)->text(), QStringLiteral("prod eu"));
        ConnectionStore::remove(QStringLiteral("prod eu"));
        QVERIFY(ConnectionStore::saved().isEmpty());
    }

    void recentUrls()
    {
        ConnectionStore::addRecent(QStringLiteral("redis://a:1"));
        ConnectionStore::addRecent(QStringLiteral("redis://b:2"));
        ConnectionStore::addRecent(QStringLiteral("redis://a:1"));
        QCOMPARE(ConnectionStore::recentUrls(),
                 (QStringList{QStringLiteral("redis://a:1"), QStringLiteral("redis://b:2")}));
        // Listed under a heading, the URL itself as the entry; choosing one fills the URL.
        ConnectionDialog dialog;
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("connectionList"));
        QVERIFY(!list->isHidden());
        QCOMPARE(list->item(0)->text(), QStringLiteral("Recent"));
        QCOMPARE(list->item(1)->text(), QStringLiteral("redis://a:1"));
        list->setCurrentRow(2);
        QCOMPARE(dialog.settings().url, QStringLiteral("redis://b:2"));
        QSettings().remove(QStringLiteral("recent/urls"));
    }

    // Nothing saved, nothing recent: no empty, unlabeled box.
    void emptyListHidden()
    {
        QSettings().clear();
        ConnectionDialog dialog;
        QVERIFY(dialog.findChild<QListWidget *>(QStringLiteral("connectionList"))->isHidden());
    }

    // Every label shows its mnemonic as an underline, never a literal "&":
    // each label with an ampersand has a buddy.
    void labelsHaveNoLiteralAmpersand()
    {
        ConnectionDialog dialog;
        const QList<QLabel *> labels = dialog.findChildren<QLabel *>();
        QVERIFY(labels.size() > 5);
        bool sawPassword = false;
        for (const QLabel *label : labels) {
            if (!label->text().contains(QLatin1Char('&')))
                continue;
            QVERIFY2(label->buddy(), qPrintable(label->text()));
            sawPassword |= label->text() == QLatin1String("&Password:");
        }
        QVERIFY(sawPassword);
    }

    // The URL the dialog opens with is the one given (the current connection's).
    void currentUrlPrefilled()
    {
        ConnectionDialog dialog;
        ConnectionSettings current;
        current.url = QStringLiteral("redis://10.1.2.3:6390/4");
        dialog.setSettings(current);
        QCOMPARE(dialog.settings().url, current.url);
        QVERIFY(dialog.canConnect());
    }

    // Test against a real server: version, role and ACL user, reported
    // asynchronously (the dialog stays responsive: the test waits on a signal).
    void testButtonReportsServer()
    {
        test::RedisServer::Options options;
        options.config << QStringLiteral("user probe on >s3cret ~* +@all");
        test::RedisServer server(options);
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        ConnectionDialog dialog;
        ConnectionSettings c;
        c.url = QStringLiteral("redis://127.0.0.1:%1").arg(server.port());
        c.user = QStringLiteral("probe");
        dialog.setSettings(c);
        dialog.findChild<QLineEdit *>(QStringLiteral("password"))
            ->setText(QStringLiteral("s3cret"));
        auto *button = dialog.findChild<QPushButton *>(QStringLiteral("testButton"));
        QVERIFY(button && button->isEnabled());
        QSignalSpy tested(&dialog, &ConnectionDialog::tested);
        button->click();
        QVERIFY(!button->isEnabled()); // one test at a time, and the click returned at once
        QVERIFY(tested.wait(10000));
        QCOMPARE(tested.first().first().toBool(), true);
        const QString report = dialog.testResult();
        // Named by what the binary is (Valkey by its own name and version).
        const QString named
            = QStringLiteral("Connected: %1 %2,")
                  .arg(test::RedisServer::serverProduct(), test::RedisServer::serverVersion());
        QVERIFY2(!test::RedisServer::serverProduct().isEmpty() && report.startsWith(named),
                 qPrintable(report + QStringLiteral(" / expected ") + named));
        QVERIFY2(report.contains(QStringLiteral("master")), qPrintable(report));
        QVERIFY2(report.contains(QStringLiteral("user probe")), qPrintable(report));
        QVERIFY(button->isEnabled());

        // A wrong password: a failure, said in a sentence.
        dialog.findChild<QLineEdit *>(QStringLiteral("password"))->setText(QStringLiteral("wrong"));
        tested.clear();
        button->click();
        QVERIFY(tested.wait(10000));
        QCOMPARE(tested.first().first().toBool(), false);
        QVERIFY2(dialog.testResult().startsWith(QStringLiteral("Could not connect")),
                 qPrintable(dialog.testResult()));

        // Nothing listening: a failure too, within the probe's time limit.
        server.stop();
        dialog.findChild<QLineEdit *>(QStringLiteral("password"))
            ->setText(QStringLiteral("s3cret"));
        tested.clear();
        button->click();
        QVERIFY(tested.wait(10000));
        QCOMPARE(tested.first().first().toBool(), false);
    }
};

QTEST_MAIN(tst_ConnectionDialog)
#include "tst_connectiondialog.moc"
