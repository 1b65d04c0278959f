// SPDX-License-Identifier: MIT
// gatehouse-screenshots DIR SECONDS [SCALE]: the console as `gatehouse --demo
// [--scale SCALE]` runs it (a private redis-server with the simulator's traffic, the demo profile
// and its alert rules), every page captured at every look to
// DIR/<look>-<n>-<page>.png after SECONDS, with a line per page on stdout
// saying how many rows its table has, how many of them show whole and how
// many points its charts draw, and at 1280x800 the dialogs; then it quits
// and the server goes with it. tst_screenshots runs it under Xvfb.

#include <actions/actionengine.h>
#include <alerts/alertengine.h>
#include <chartpanel.h>
#include <confirmactiondialog.h>
#include <connectiondialog.h>
#include <consolenavigation.h>
#include <deployment/deployment.h>
#include <englishplurals.h>
#include <mainwindow.h>
#include <monitor/monitor.h>
#include <monitor/profile.h>
#include <objecttablemodel.h>
#include <redis/redisclient.h>
#include <sectionpage.h>
#include <sim/demoserver.h>
#include <sim/simulator.h>
#include <statusdetails.h>
#include <theme.h>
#include <unconfirmedpage.h>

#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QRandomGenerator>
#include <QSize>
#include <QStatusBar>
#include <QTableView>
#include <QTextStream>
#include <QTimer>

#include <memory>

using namespace gatehouse;

namespace {

// The window sizes and palettes the screenshots are taken at.
struct Look
{
    QSize size;
    theme::Scheme scheme;
    QString name() const
    {
        return QStringLiteral("%1x%2-%3")
            .arg(size.width())
            .arg(size.height())
            .arg(scheme == theme::Scheme::Dark ? QStringLiteral("dark") : QStringLiteral("light"));
    }
};

const QList<Look> &screenshotLooks()
{
    static const QList<Look> looks{{{1280, 800}, theme::Scheme::Light},
                                   {{1280, 800}, theme::Scheme::Dark},
                                   {{1920, 1080}, theme::Scheme::Light},
                                   {{1920, 1080}, theme::Scheme::Dark}};
    return looks;
}

// The Connect dialog as File > Connect opens it (on the current connection).
using DialogFactory = std::function<QDialog *()>;

void saveDialog(QWidget *dialog, const QString &dir, int look, const QString &name)
{
    const QString file = QDir(dir).filePath(
        QStringLiteral("%1-dialog-%2.png").arg(screenshotLooks().at(look).name(), name));
    dialog->grab().save(file);
    QTextStream(stdout) << "dialog=" << name << " look=" << screenshotLooks().at(look).name()
                        << " file=" << file << " size=" << dialog->width() << 'x'
                        << dialog->height() << Qt::endl;
}

// The dialogs an operator meets, at a look: Connect, a new token's secret
// (a sample secret: the dialog as an issued token opens it) and the
// confirmation of a limiter's reset (Delete on sim:rl:api:0, then Cancel:
// nothing runs). Then next.
void captureDialogs(MainWindow *window, const QString &dir, int look,
                    const DialogFactory &connectDialog, const std::function<void()> &next)
{
    QDialog *connect = connectDialog();
    connect->show();
    QTimer::singleShot(500, window, [=] {
        saveDialog(connect, dir, look, QStringLiteral("connect"));
        delete connect;
        QString secret;
        const QString alphabet = QStringLiteral("abcdefghijklmnopqrstuvwxyz0123456789");
        for (int i = 0; i < 40; ++i)
            secret += alphabet.at(QRandomGenerator::global()->bounded(int(alphabet.size())));
        auto *issued
            = new IssuedDialog("sim:code:" + secret.left(12).toUtf8(), secret.toUtf8(), window);
        issued->show();
        QTimer::singleShot(500, window, [=] {
            saveDialog(issued, dir, look, QStringLiteral("issued"));
            delete issued;
            window->showPage(window->pageOf(QStringLiteral("limiter")));
            window->sectionPage(QStringLiteral("limiter"))->selectKey("sim:rl:api:0");
            // The confirmation is modal: saved and cancelled from a timer
            // inside its own event loop.
            auto *poll = new QTimer(window);
            QObject::connect(poll, &QTimer::timeout, window, [=] {
                auto *box = qobject_cast<QDialog *>(QApplication::activeModalWidget());
                if (!box)
                    return;
                poll->stop();
                QTimer::singleShot(500, box, [=] {
                    saveDialog(box, dir, look, QStringLiteral("confirm"));
                    box->reject();
                });
            });
            poll->start(100);
            auto *navigation
                = window->findChild<ConsoleNavigation *>(QStringLiteral("consoleNavigation"));
            if (navigation)
                navigation->triggerPrimaryAction();
            QTimer::singleShot(1000, window, [window, poll, next] {
                poll->deleteLater();
                window->statusBar()->clearMessage(); // "Cancelled: nothing was sent."
                next();
            });
        });
    });
}

// How many of a table's rows show whole, from the top.
int wholeRows(const QTableView *view)
{
    int whole = 0;
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        const QRect rect = view->visualRect(view->model()->index(row, 0));
        if (rect.isEmpty() || rect.bottom() >= view->viewport()->height())
            break;
        ++whole;
    }
    return whole;
}

// Every page captured at every look to
// DIR/<look>-<n>-<page>.png after the console has run for a while, with a
// line per page on stdout saying how many rows its table has and how many
// points its charts draw, and at 1280x800 the dialogs (captureDialogs); then
// quit.
void captureAll(MainWindow *window, const QString &dir, int look, int page,
                const DialogFactory &connectDialog, bool dialogsDone = false)
{
    if (page >= window->pageNames().size()) {
        if (!dialogsDone && screenshotLooks().at(look).size.width() == 1280) {
            captureDialogs(window, dir, look, connectDialog,
                           [=] { captureAll(window, dir, look, page, connectDialog, true); });
            return;
        }
        ++look;
        page = 0;
    }
    if (look >= screenshotLooks().size()) {
        QApplication::quit();
        return;
    }
    const Look &l = screenshotLooks().at(look);
    if (page == 0) {
        theme::apply(l.scheme);
        window->resize(l.size);
    }
    window->showPage(page);
    // A section's page (the registry's): its first row selected.
    const auto *sectionPage = qobject_cast<SectionPage *>(window->page(page));
    const QString section = sectionPage ? sectionPage->section().id : QString();
    if (!section.isEmpty() && window->table(section))
        window->table(section)->selectRow(0);
    // Two chart refreshes (500 ms each) after the selection: the window strip
    // needs one detailed reading first.
    QTimer::singleShot(1600, window, [window, dir, look, page, section, connectDialog] {
        const QString name
            = window->pageNames().at(page).toLower().replace(QLatin1Char(' '), QLatin1Char('-'));
        const QString file = QDir(dir).filePath(QStringLiteral("%1-%2-%3.png")
                                                    .arg(screenshotLooks().at(look).name())
                                                    .arg(page)
                                                    .arg(name));
        window->grab().save(file);
        const int rows = section.isEmpty() ? -1 : window->model(section)->rowCount();
        const int whole = section.isEmpty() ? -1 : wholeRows(window->table(section));
        const int points = window->chart(section) ? window->chart(section)->pointCount() : -1;
        QTextStream(stdout) << "page=" << name << " look=" << screenshotLooks().at(look).name()
                            << " file=" << file << " rows=" << rows << " whole=" << whole
                            << " points=" << points << Qt::endl;
        captureAll(window, dir, look, page + 1, connectDialog);
    });
}

// The demo's console, as gatehouse --demo wires it, on this thread.
struct DemoConsole
{
    DemoConsole(const RedisEndpoint &endpoint, int scale)
    {
        QString error;
        profile = Profile::load(QStringLiteral("demo"), &error).value_or(Profile());
        Deployment::Options options;
        options.endpoint = endpoint;
        options.monitor.profile = profile;
        options.retryFirstConnection = true;
        Simulator::Options sim;
        sim.scale = scale;
        options.demoTraffic = sim;
        options.actions = true;
        options.alerts = profile.alerts;
        deployment = std::make_unique<Deployment>(std::move(options));
        MainWindow::Options windowOptions;
        windowOptions.demo = true;
        window = std::make_unique<MainWindow>(deployment.get(), windowOptions);
        new StatusDetails(window->statusBar()); // owned by the status bar
        window->setAlerts(profile);
        window->unconfirmedPage()->setProfile(profile, profile.autodetect);
        window->show();
        deployment->start();
    }

    Monitor *monitor() const { return deployment->monitor(); }

    Profile profile;
    std::unique_ptr<Deployment> deployment;
    std::unique_ptr<MainWindow> window; // before the deployment it shows goes
};

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QCoreApplication::installTranslator(new EnglishPlurals(&app));
    // Its own settings: the screenshots never start from an operator's
    // window sizes, and never change them.
    QApplication::setApplicationName(QStringLiteral("gatehouse-screenshots"));
    QApplication::setOrganizationName(QStringLiteral("Gatehouse"));
    const QStringList args = QCoreApplication::arguments();
    if (args.size() != 3 && args.size() != 4) {
        QTextStream(stderr) << "usage: gatehouse-screenshots DIR SECONDS [SCALE]" << Qt::endl;
        return 2;
    }
    const QString dir = args.at(1);
    const int seconds = args.at(2).toInt();
    const int scale = std::max(1, args.value(3, QStringLiteral("1")).toInt());
    QDir().mkpath(dir);
    DemoServer demoServer;
    std::unique_ptr<DemoConsole> console;
    QObject::connect(&demoServer, &DemoServer::ready, &app, [&] {
        console = std::make_unique<DemoConsole>(demoServer.endpoint(), scale);
        MainWindow *window = console->window.get();
        ConnectionSettings current;
        current.url = demoServer.endpoint().displayUrl();
        current.profile = QStringLiteral("demo");
        const DialogFactory connectDialog = [current] {
            auto *dialog = new ConnectionDialog;
            dialog->setSettings(current);
            return dialog;
        };
        QTimer::singleShot(seconds * 1000, window, [window, dir, connectDialog] {
            captureAll(window, dir, 0, 0, connectDialog);
        });
    });
    QObject::connect(&demoServer, &DemoServer::failed, &app, [](const QString &message) {
        QTextStream(stderr) << "gatehouse-screenshots: " << message << Qt::endl;
        QCoreApplication::exit(1);
    });
    demoServer.start();
    const int code = app.exec();
    console.reset(); // readings and traffic stop before the server goes
    demoServer.stop();
    return code;
}
