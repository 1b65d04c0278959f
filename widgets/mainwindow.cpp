// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "actionrightsgate.h"
#include "actionworkflow.h"
#include "alertpresenter.h"
#include "alertspage.h"
#include "auditpage.h"
#include "chartpanel.h"
#include "connectionwords.h"
#include "consolenavigation.h"
#include "faultbanner.h"
#include "filemenu.h"
#include "nodespage.h"
#include "objectpanel.h"
#include "otherkeyspage.h"
#include "overviewpage.h"
#include "overviewtiles.h"
#include "pagelist.h"
#include "panels/panelregistry.h"
#include "sectionpage.h"
#include "serverpanel.h"
#include "statuspresenter.h"
#include "timelinepage.h"
#include "unconfirmedpage.h"

#include <monitor/jobbrowser.h>

#include <actions/actionengine.h>
#include <alerts/alertengine.h>
#include <deployment/consolereads.h>
#include <deployment/deployment.h>
#include <history/historystore.h>
#include <monitor/monitor.h>
#include <patterns/patternregistry.h>

#include <QAction>
#include <QDateTime>
#include <QHBoxLayout>
#include <QMenuBar>
#include <QSettings>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace gatehouse {

MainWindow::MainWindow(Deployment *deployment, Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_deployment(deployment)
    , m_monitor(deployment->monitor())
    , m_actions(deployment->actions())
    , m_rights(new ActionRightsGate(m_actions, this))
    , m_jobBrowser(deployment->jobs())
    , m_reads(deployment->reads())
    , m_options(options)
    , m_history(deployment->history())
    , m_snapshot(std::make_shared<const Snapshot>())
    , m_pages(new PageList(this))
    , m_stack(new QStackedWidget(this))
    , m_banner(new FaultBanner(this))
    , m_status(
          new StatusPresenter(statusBar(), options.readOnly, options.demo, options.environment))
    , m_workflow(new ActionWorkflow(m_reads, m_actions, options.readOnly, this))
{
    Q_ASSERT(m_monitor && m_actions);
    m_actions->setEnvironment(m_options.environment.label); // in every audit entry
    const QString url = deployment->endpoint().displayUrl();
    // The application's name follows ("… — Gatehouse": Qt adds the display
    // name), as in any document window.
    setWindowTitle(
        m_options.environment.titled(m_options.demo ? QStringLiteral("%1 — DEMO").arg(url) : url));
    // What the confirmations read from their parent window.
    markWindow(this, m_options.environment, url);
    setWindowIcon(QIcon(QStringLiteral(":/resources/gatehouse.svg")));
    buildPages();
    buildLayout();
    new FileMenu(this, deployment);

    connect(m_banner, &FaultBanner::connectRequested, this, &MainWindow::connectRequested);
    connect(m_workflow, &ActionWorkflow::message, this, &MainWindow::showMessage);
    connect(m_workflow, &ActionWorkflow::outcome, m_banner, &FaultBanner::showOutcome);
    connect(m_workflow, &ActionWorkflow::ran, this, [this](const QList<QByteArray> &keys) {
        QMetaObject::invokeMethod(m_monitor, [monitor = m_monitor, keys] {
            monitor->judgeWritten(keys);
            monitor->refreshNow();
        });
        for (SectionPage *page : std::as_const(m_sectionPages))
            page->reloadJobs(); // the job lists show where the jobs went
    });
    connect(m_workflow, &ActionWorkflow::finished, this, &MainWindow::actionFinished);
    connect(deployment, &Deployment::snapshotReady, this, &MainWindow::onSnapshot);
    if (m_history)
        showHistory();
    m_status->follow(m_monitor);
    connect(m_actions, &ActionEngine::audited, m_audit, &AuditPage::reload);
    // The rights are the actions' connection's: its own reconnect (which the
    // monitor's connection may not share) asks them again.
    connect(m_reads, &ConsoleReads::ready, m_rights, &ActionRightsGate::renew);
    // Until the first snapshot: the connection as the client last reported it.
    showConnection(deployment->actionsConnection());

    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, &MainWindow::onTimer);
    m_timer.start();

    // View, Actions and Help menus, keys, context menus; opening an object.
    m_navigation = new ConsoleNavigation(this);
    connect(m_overview, &OverviewPage::openRequested, m_navigation, &ConsoleNavigation::openObject);

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1200, 800);
}

MainWindow::~MainWindow()
{
    QSettings().setValue(QStringLiteral("window/geometry"), saveGeometry());
}

// The Overview, a page per section of the pattern registry, autodetection's
// pages, the Nodes page, the audit log.
void MainWindow::buildPages()
{
    m_overview = new OverviewPage(this);
    connect(m_overview, &OverviewPage::alertsRequested, this,
            [this] { showPage(m_stack->indexOf(m_alertsPage)); });
    auto *serverPanel = new ServerPanel(m_reads, m_overview);
    m_overview->setServerPanel(serverPanel);
    addPage(m_overview, tr("Overview"));
    for (const Section &section : PatternRegistry::instance().sections()) {
        auto *page = new SectionPage(section, m_options.readOnly, this);
        page->setJobBrowser(m_jobBrowser);
        page->setRightsGate(m_rights);
        for (ObjectPanel *panel : PanelRegistry::instance().createPanels(
                 section, {m_reads, m_options.readOnly, {}}, page))
            page->addPanel(panel);
        connect(page, &SectionPage::selectionChanged, this, &MainWindow::watchSelection);
        connect(page, &SectionPage::actionRequested, m_workflow, &ActionWorkflow::act);
        connect(page, &SectionPage::actionsRequested, m_workflow, &ActionWorkflow::actOnEach);
        connect(page, &SectionPage::message, this, [this](const QString &text) {
            showMessage(text);
            Q_EMIT actionFinished(text);
        });
        m_sectionPages.append(page);
        addPage(page, section.title);
    }
    m_unconfirmed = new UnconfirmedPage(m_options.readOnly, this);
    connect(m_unconfirmed, &UnconfirmedPage::profileChanged, this, [this](const Profile &p) {
        QMetaObject::invokeMethod(m_monitor, [monitor = m_monitor, p] { monitor->setProfile(p); });
        if (m_alertsPage)
            m_alertsPage->setProfile(p); // its rules are saved to the same file
    });
    connect(m_unconfirmed, &UnconfirmedPage::message, this, [this](const QString &text) {
        showMessage(text, 10000);
        Q_EMIT actionFinished(text);
    });
    connect(m_unconfirmed, &UnconfirmedPage::verdictFailed, this, [this](const QString &text) {
        m_banner->showProblem(tr("The verdict was not saved."), text,
                              tr("Nothing changed: the family is still unconfirmed. Fix what the "
                                 "sentence says, then accept or reject it again."));
        m_lastOutcome = text;
        Q_EMIT actionFinished(text);
    });
    addPage(m_unconfirmed, tr("Unconfirmed"));
    m_otherKeys = new OtherKeysPage(this);
    addPage(m_otherKeys, tr("Other keys"));
    m_nodesPage = new NodesPage(this);
    // A standalone server's memory, clients and ops/s on the Nodes page are
    // the server panel's (its one INFO, read while either page is shown).
    connect(serverPanel, &ServerPanel::updated, m_nodesPage,
            [this, serverPanel] { m_nodesPage->setServerFigures(serverPanel->figures()); });
    connect(m_nodesPage, &NodesPage::serverFiguresWanted, serverPanel, &ServerPanel::readNow);
    addPage(m_nodesPage, tr("Nodes"));
    m_audit = new AuditPage(m_actions->auditLogPath(), this);
    addPage(m_audit, tr("Audit log"));
    connect(m_audit, &AuditPage::openRequested, m_overview, &OverviewPage::openRequested);
    m_timeline = new TimelinePage(this);
    addPage(m_timeline, tr("Timeline"));
}

void MainWindow::buildLayout()
{
    // The pages get every pixel beside the side list (no dead band between
    // the two).
    m_pages->fitWidth();
    setMinimumSize(960, 600); // below it the charts' labels and the actions no longer fit
    connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    connect(m_pages, &QListWidget::currentRowChanged, this, [this] { m_dirty = true; });
    m_pages->setCurrentRow(0);
    // A row, not a splitter: a splitter gave the fixed-width list more room
    // than it takes and left a grey band beside it.
    auto *row = new QWidget(this);
    auto *rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    rowLayout->addWidget(m_pages);
    rowLayout->addWidget(m_stack, 1);
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    m_banner->setParent(central);
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(row, 1);
    setCentralWidget(central);
}

void MainWindow::showHistory()
{
    const std::shared_ptr<HistoryStore> &store = m_history;
    const QString file = store->path();
    connect(store.get(), &HistoryStore::problem, this,
            [this](const QString &message) { showMessage(message); });
    for (SectionPage *page : std::as_const(m_sectionPages)) {
        if (ChartPanel *chart = page->chart())
            chart->setHistoryFile(file);
        for (ObjectPanel *panel : page->panels())
            panel->setHistory(store, file);
    }
    m_overview->setHistoryFile(file);
    m_timeline->setHistoryFile(file);
}

void MainWindow::addPage(QWidget *page, const QString &title)
{
    m_stack->addWidget(page);
    m_pages->addPage(title);
}

void MainWindow::setAlerts(const Profile &profile)
{
    AlertEngine *engine = m_deployment->alerts();
    if (m_alertsPage || !engine)
        return;
    m_alertsPage = new AlertsPage(engine, this);
    m_alertsPage->setProfile(profile);
    addPage(m_alertsPage, tr("Alerts"));
    connect(m_alertsPage, &AlertsPage::openRequested, m_navigation, &ConsoleNavigation::openObject);
    auto *presenter = new AlertPresenter(engine, this);
    presenter->showFiringIn(m_pages->item(m_pages->count() - 1), m_overview);
    connect(presenter, &AlertPresenter::alertsWanted, this,
            [this] { showPage(m_stack->indexOf(m_alertsPage)); });
}

void MainWindow::updateSideList()
{
    // Each section's count, and a badge in the worst state's colour with how
    // many need attention; the states' words in the tooltip.
    const QHash<QString, SectionTally> tallies = m_tallier.tally(m_snapshot);
    for (SectionPage *page : std::as_const(m_sectionPages))
        m_pages->setTally(m_stack->indexOf(page), tallies.value(page->section().id), m_offline);
    // Autodetection's pages: how many rows each lists.
    m_pages->setCount(m_stack->indexOf(m_unconfirmed), m_unconfirmed->count());
    m_pages->setCount(m_stack->indexOf(m_otherKeys), m_otherKeys->count());
    m_pages->fillBlankIcons();
}

void MainWindow::openObject(const QString &section, const QByteArray &key)
{
    m_navigation->openObject(section, key);
}

QMenu *MainWindow::viewMenu()
{
    if (QMenu *view
        = menuBar()->findChild<QMenu *>(QStringLiteral("viewMenu"), Qt::FindDirectChildrenOnly))
        return view;
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    return view;
}

void MainWindow::watchSelection(const QByteArray &latest)
{
    QList<QByteArray> keys;
    for (SectionPage *page : std::as_const(m_sectionPages)) {
        if (const ObjectState *s = page->selected())
            keys << s->object->key;
    }
    QMetaObject::invokeMethod(m_monitor, [monitor = m_monitor, keys, latest] {
        monitor->setWatched(keys);
        monitor->setDetailKey(latest);
    });
}

void MainWindow::onSnapshot(const Snapshot &snapshot)
{
    m_snapshot = std::make_shared<const Snapshot>(snapshot);
    m_workflow->setClockOffsetMs(snapshot.server.clockOffsetMs);
    for (SectionPage *page : std::as_const(m_sectionPages))
        page->setSnapshot(m_snapshot);
    m_unconfirmed->setSnapshot(m_snapshot);
    m_otherKeys->setSnapshot(m_snapshot);
    m_timeline->setSnapshot(snapshot);
    if (const ConnectionStatus &c = snapshot.server.primary().connection; c != m_connection)
        showConnection(c);
    m_banner->showWorld(snapshot.server);
    m_dirty = true;
}

void MainWindow::onTimer()
{
    const ServerStatus &server = m_snapshot->server;
    m_status->tick(server, m_offline);
    // Offline the server's clock is unknown: the last reading's time, so
    // nothing is projected on the desktop's clock.
    const qint64 serverNow = m_offline && server.timeMs > 0
                                 ? server.timeMs
                                 : QDateTime::currentMSecsSinceEpoch() + server.clockOffsetMs;
    // The Nodes page sees every snapshot: a failover shows when it happens.
    // The side list with the Overview: both count the same snapshot.
    if (m_dirty) {
        updateSideList();
        m_nodesPage->update(*m_snapshot);
        m_overview->record(m_snapshot); // the queues' chart keeps its live history
    }
    // Only what is on screen is redrawn.
    const bool changed = m_dirty;
    m_dirty = false;
    if (auto *page = qobject_cast<SectionPage *>(m_stack->currentWidget()))
        page->refresh(serverNow, changed);
    else if (m_stack->currentWidget() == m_overview) {
        if (changed)
            m_overview->update(*m_snapshot, m_everReady);
        m_overview->tiles()->tick(serverNow, m_offline);
    }
}

QString MainWindow::bannerText() const
{
    return m_banner->text();
}

void MainWindow::showMessage(const QString &text, int timeoutMs)
{
    m_lastOutcome = text;
    m_status->showMessage(text, timeoutMs);
}

void MainWindow::showConnection(const ConnectionStatus &status)
{
    m_connection = status;
    // The sentence without its attempt countdown (the state label counts down).
    const QString message = ConnectionWords::withoutAttempt(status.message);
    const bool ready = status.state == ConnectionState::Ready;
    if (QAction *disconnect = findChild<QAction *>(QStringLiteral("disconnect")))
        disconnect->setEnabled(status.state != ConnectionState::Disconnected
                               && status.state != ConnectionState::Failed);
    if (!ready)
        m_rights->forget(); // another server, or another user, may answer next
    if (ready && !m_everReady) {
        m_everReady = true;
        m_dirty = true; // the overview shows figures from now on
    }
    // Not connected: say so where the figures are, grey them and disable
    // every action (a confirmation that can only fail is a surprise).
    const QString offline
        = ready ? QString() : ConnectionWords::offline(status.state, m_snapshot->server);
    m_banner->showConnection(status, message, offline, m_everReady);
    for (SectionPage *page : std::as_const(m_sectionPages))
        page->setOffline(offline);
    m_unconfirmed->setOffline(offline);
    if (m_offline != !offline.isEmpty()) {
        m_offline = !offline.isEmpty();
        updateSideList();
    }
    m_status->showConnection(status, message);
}

} // namespace gatehouse
