// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "alertspage.h"
#include "auditpage.h"
#include "chartpanel.h"
#include "confirmactiondialog.h"
#include "connectionwords.h"
#include "consolenavigation.h"
#include "desktopnotifier.h"
#include "familyproxymodel.h"
#include "nodespage.h"
#include "objectpanel.h"
#include "objecttablemodel.h"
#include "otherkeyspage.h"
#include "overviewpage.h"
#include "sectionpage.h"
#include "serverpanel.h"
#include "sidelist.h"
#include "unconfirmedpage.h"

#include <monitor/jobbrowser.h>

#include <actions/actionengine.h>
#include <actions/matchcount.h>
#include <history/historyfeed.h>
#include <history/historystore.h>
#include <monitor/monitor.h>
#include <patterns/patternregistry.h>
#include <patterns/presentation.h>
#include <redis/redisclient.h>

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QFileDialog>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QListWidgetItem>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace gatehouse {

MainWindow::MainWindow(RedisClient *client, Monitor *monitor, ActionEngine *actions,
                       Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_client(client)
    , m_monitor(monitor)
    , m_actions(actions)
    , m_jobBrowser(new JobBrowser(client, this))
    , m_options(options)
    , m_snapshot(std::make_shared<const Snapshot>())
    , m_pages(new QListWidget(this))
    , m_stack(new QStackedWidget(this))
    , m_stateLabel(new QLabel(this))
    , m_serverLabel(new QLabel(this))
    , m_eventsLabel(new QLabel(this))
    , m_ageLabel(new QLabel(this))
    , m_offsetLabel(new QLabel(this))
    , m_discoveryBar(new QProgressBar(this))
    , m_cancelDiscovery(new QToolButton(this))
{
    setWindowTitle(QStringLiteral("Gatehouse%1 — %2")
                       .arg(m_options.demo ? QStringLiteral(" — DEMO") : QString(),
                            client->endpoint().displayUrl()));
    setWindowIcon(QIcon(QStringLiteral(":/resources/gatehouse.svg")));

    // The pages: the Overview, a page per section of the pattern registry,
    // the audit log.
    m_overview = new OverviewPage(this);
    connect(m_overview, &OverviewPage::openRequested, this, &MainWindow::openObject);
    connect(m_overview, &OverviewPage::alertsRequested, this,
            [this] { showPage(m_stack->indexOf(m_alertsPage)); });
    auto *serverPanel = new ServerPanel(m_client, m_overview);
    m_overview->setServerPanel(serverPanel);
    addPage(m_overview, tr("Overview"));
    for (const Section &section : PatternRegistry::instance().sections()) {
        auto *page = new SectionPage(section, m_options.readOnly, this);
        page->setJobBrowser(m_jobBrowser);
        for (ObjectPanel *panel :
             ObjectPanel::create(section.id, {m_client, m_options.readOnly}, page))
            page->addPanel(panel);
        connect(page, &SectionPage::selectionChanged, this, &MainWindow::watchSelection);
        connect(page, &SectionPage::actionRequested, this, &MainWindow::act);
        connect(page, &SectionPage::actionsRequested, this, &MainWindow::actOnEach);
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
        showBanner(BannerKind::Action, tr("The verdict was not saved."), text,
                   tr("Nothing changed: the family is still unconfirmed. Fix what the sentence "
                      "says, then accept or reject it again."));
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
    // Sized to its widest entry with a count, and kept at that width: the
    // pages get every other pixel (no dead band between the two).
    m_pages->setObjectName(QStringLiteral("sideList"));
    m_pages->setIconSize(QSize(22, 22));
    m_pages->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    {
        int widest = 0;
        for (const QString &name : pageNames())
            widest = std::max(widest, m_pages->fontMetrics().horizontalAdvance(name));
        m_pages->setFixedWidth(widest + m_pages->iconSize().width()
                               + m_pages->fontMetrics().horizontalAdvance(QStringLiteral("  00000"))
                               + 28);
    }
    setMinimumSize(960, 600); // below it the charts' labels and the actions no longer fit
    connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    connect(m_pages, &QListWidget::currentRowChanged, this, [this] { m_dirty = true; });
    m_pages->setCurrentRow(0);

    // A row, not a splitter: a splitter gave the fixed-width list more room
    // than it takes and left a grey band beside it.
    auto *splitter = new QWidget(this);
    auto *row = new QHBoxLayout(splitter);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_pages);
    row->addWidget(m_stack, 1);
    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    m_banner = new QFrame(central);
    m_banner->setObjectName(QStringLiteral("faultBanner"));
    auto *bannerLayout = new QHBoxLayout(m_banner);
    m_bannerText = new QLabel(m_banner);
    m_bannerText->setWordWrap(true);
    m_bannerText->setTextFormat(Qt::RichText);
    bannerLayout->addWidget(m_bannerText, 1);
    m_bannerConnect = new QPushButton(tr("Connect…"), m_banner);
    connect(m_bannerConnect, &QPushButton::clicked, this, &MainWindow::connectRequested);
    bannerLayout->addWidget(m_bannerConnect);
    m_bannerDismiss = new QPushButton(tr("Dismiss"), m_banner);
    connect(m_bannerDismiss, &QPushButton::clicked, this, [this] {
        if (m_bannerKind == BannerKind::World)
            m_worldNotice.dismiss();
        showBanner(BannerKind::None, {}, {}, {});
    });
    bannerLayout->addWidget(m_bannerDismiss);
    m_banner->hide();
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(splitter, 1);
    setCentralWidget(central);

    // Status bar: state, server, events, age of the reading, clock offset, badges.
    m_discoveryBar->setObjectName(QStringLiteral("discoveryProgress"));
    statusBar()->addPermanentWidget(m_discoveryBar);
    m_discoveryBar->setMaximumWidth(260);
    m_discoveryBar->hide();
    m_cancelDiscovery->setText(tr("Cancel"));
    m_cancelDiscovery->setToolTip(tr("Stop the key scan; what was found stays"));
    m_cancelDiscovery->hide();
    connect(m_cancelDiscovery, &QToolButton::clicked, this,
            [this] { QMetaObject::invokeMethod(m_monitor, &Monitor::cancelDiscovery); });
    statusBar()->addPermanentWidget(m_cancelDiscovery);
    m_eventsLabel->setObjectName(QStringLiteral("eventsLabel"));
    for (QLabel *l : {m_stateLabel, m_serverLabel, m_eventsLabel, m_ageLabel, m_offsetLabel})
        statusBar()->addPermanentWidget(l);
    if (m_options.readOnly) {
        auto *badge = new QLabel(tr("<b>READ-ONLY</b>"), this);
        badge->setToolTip(tr("Started with --read-only: every action is disabled."));
        statusBar()->addPermanentWidget(badge);
    }
    if (m_options.demo) {
        auto *badge = new QLabel(tr("<b>DEMO</b>"), this);
        badge->setToolTip(tr("A private redis-server with simulated traffic; it is removed "
                             "when you quit."));
        statusBar()->addPermanentWidget(badge);
    }

    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *connectAction = file->addAction(tr("&Connect…"), this, &MainWindow::connectRequested);
    connectAction->setShortcut(QKeySequence::Open);
    QAction *disconnectAction = file->addAction(tr("&Disconnect"), this, [this] {
        QMetaObject::invokeMethod(m_monitor, &Monitor::stop);
        m_client->close();
    });
    disconnectAction->setObjectName(QStringLiteral("disconnect"));
    QAction *refresh = file->addAction(tr("&Refresh now"), this, [this] {
        QMetaObject::invokeMethod(m_monitor, &Monitor::refreshNow);
    });
    refresh->setShortcut(QKeySequence::Refresh);
    // Nothing is read while paused (a server in trouble, or a view to study
    // as it stands); the readings show their age meanwhile.
    QAction *pause = file->addAction(tr("&Pause refresh"));
    pause->setObjectName(QStringLiteral("pauseRefresh"));
    pause->setCheckable(true);
    pause->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(pause, &QAction::toggled, this, [this](bool paused) {
        Monitor *monitor = m_monitor;
        QMetaObject::invokeMethod(monitor, [monitor, paused] { monitor->setPaused(paused); });
    });
    QAction *find = file->addAction(tr("&Find…"), this, [this] {
        if (m_stack->currentWidget() == m_audit) {
            m_audit->focusFilter();
            return;
        }
        if (m_stack->currentWidget() == m_unconfirmed) {
            m_unconfirmed->focusFilter();
            return;
        }
        if (m_stack->currentWidget() == m_otherKeys) {
            m_otherKeys->focusFilter();
            return;
        }
        auto *page = qobject_cast<SectionPage *>(m_stack->currentWidget());
        if (!page && !m_sectionPages.isEmpty()) {
            page = m_sectionPages.first();
            showPage(m_stack->indexOf(page));
        }
        if (page)
            page->focusFilter();
    });
    find->setShortcut(QKeySequence::Find);
    QAction *csv = file->addAction(tr("Export table as &CSV…"), this, [this] {
        auto *page = qobject_cast<SectionPage *>(m_stack->currentWidget());
        if (!page) {
            showMessage(tr("Open a page with a table to export it."), 5000);
            return;
        }
        const QString file
            = QFileDialog::getSaveFileName(this, tr("Export table"), QString(), tr("CSV (*.csv)"));
        if (!file.isEmpty() && !page->exportCsv(file))
            showMessage(tr("Could not write %1.").arg(file));
    });
    csv->setShortcut(QKeySequence::Save);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    // QKeySequence::Quit is empty under some platform themes (Windows' keys).
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));

    connect(m_monitor, &Monitor::snapshotReady, this, &MainWindow::onSnapshot);
    if (!m_options.historyFile.isEmpty()) {
        m_history = std::make_shared<HistoryStore>(m_options.historyFile, m_options.historyOptions);
        HistoryStore *history = m_history.get();
        // Direct: the figures are computed on the monitor's thread, written
        // on the store's; the GUI thread does neither. Only the objects the
        // monitor replaced since the last tick are compared (feedHistory).
        // Written from the end of the first discovery on, as serve and watch
        // do: its ticks list a growing part of the keyspace, each one a full
        // comparison, and the first record of every object found would go
        // through the minute's rows as well as the keyframe after it.
        auto discovered = std::make_shared<bool>(false);
        connect(
            m_monitor, &Monitor::discoveryFinished, history,
            [discovered](bool) { *discovered = true; }, Qt::DirectConnection);
        connect(
            m_monitor, &Monitor::tickFinished, history,
            [monitor = m_monitor, discovered,
             weak = std::weak_ptr<HistoryStore>(m_history)](const Snapshot &s) {
                if (const auto store = weak.lock())
                    feedHistory(*monitor, *store, s, *discovered);
            },
            Qt::DirectConnection);
        connect(history, &HistoryStore::problem, this,
                [this](const QString &message) { showMessage(message); });
        history->open();
        for (SectionPage *page : std::as_const(m_sectionPages)) {
            if (ChartPanel *chart = page->chart())
                chart->setHistoryFile(m_options.historyFile);
            for (ObjectPanel *panel : page->panels())
                panel->setHistory(m_history, m_options.historyFile);
        }
        m_overview->setHistoryFile(m_options.historyFile);
    }
    connect(m_monitor, &Monitor::discoveryProgress, this, [this](qint64 scanned, qint64 total) {
        // Shown until the scan's keys are judged too (discoveryFinished).
        m_discoveryBar->setRange(0, int(std::min<qint64>(total, INT_MAX)));
        m_discoveryBar->setValue(int(std::min<qint64>(scanned, INT_MAX)));
        m_discoveryBar->setFormat(ConnectionWords::scanning(scanned, total));
        m_discoveryBar->setToolTip(m_discoveryBar->format());
        m_discoveryBar->show();
        m_cancelDiscovery->show();
    });
    connect(m_monitor, &Monitor::discoveryFinished, this, [this] {
        m_discoveryBar->hide();
        m_cancelDiscovery->hide();
    });
    connect(m_actions, &ActionEngine::audited, m_audit, &AuditPage::reload);
    // Until the first snapshot: the connection as the client last reported it.
    showConnection({client->state(), client->errorString(), client->nextAttemptAtMs()});

    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, &MainWindow::onTimer);
    m_timer.start();

    new ConsoleNavigation(this); // View, Actions and Help menus, keys, context menus

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1200, 800);
}

MainWindow::~MainWindow()
{
    QSettings().setValue(QStringLiteral("window/geometry"), saveGeometry());
}

void MainWindow::addPage(QWidget *page, const QString &title)
{
    m_stack->addWidget(page);
    auto *item = new QListWidgetItem(title, m_pages);
    item->setData(Qt::UserRole, title); // the text gains counts (updateSideList)
    item->setToolTip(ConsoleNavigation::withShortcut(title, m_pages->count() - 1));
    // Every entry indented alike, with a badge or without.
    QPixmap blank(m_pages->iconSize());
    blank.fill(Qt::transparent);
    item->setIcon(QIcon(blank));
}

void MainWindow::openObject(const QString &section, const QByteArray &key)
{
    if (SectionPage *page = sectionPage(section)) {
        showPage(pageOf(section));
        page->selectKey(key);
    } else if (section == QLatin1String("node")) {
        // A node's alert (down, lagging): its row on the Nodes page.
        showPage(m_stack->indexOf(m_nodesPage));
        QTableWidget *nodes = m_nodesPage->table();
        for (int row = 0; row < nodes->rowCount(); ++row) {
            const QTableWidgetItem *cell = nodes->item(row, NodesPage::Address);
            if (cell && cell->text() == QString::fromUtf8(key))
                nodes->selectRow(row);
        }
    }
}

void MainWindow::setAlerts(AlertEngine *engine, const Profile &profile)
{
    if (m_alertsPage)
        return;
    m_alertsPage = new AlertsPage(engine, this);
    m_alertsPage->setProfile(profile);
    addPage(m_alertsPage, tr("Alerts"));
    QListWidgetItem *item = m_pages->item(m_pages->count() - 1);
    connect(engine, &AlertEngine::firingCountChanged, this,
            [item](int n) { item->setText(n > 0 ? tr("Alerts (%1)").arg(n) : tr("Alerts")); });
    connect(m_alertsPage, &AlertsPage::openRequested, this, &MainWindow::openObject);
    // The Overview says how many fire and the worst of them.
    const auto firing = [this, engine] {
        m_overview->setFiring(engine->firing());
    };
    connect(engine, &AlertEngine::firingCountChanged, this, firing);
    connect(engine, &AlertEngine::transition, this, firing);
    // Queued: the monitor ticks on its own thread; evaluating is cheap
    // (a figure per object per rule), so it runs here, beside the page.
    connect(m_monitor, &Monitor::tickFinished, engine, &AlertEngine::evaluate);
    connect(m_monitor, &Monitor::tickOverdue, engine, &AlertEngine::evaluate);
    // Every firing and resolution goes into the history file beside the figures.
    if (m_history) {
        connect(engine, &AlertEngine::transition, this,
                [weak = std::weak_ptr<HistoryStore>(m_history)](const AlertEvent &e) {
                    if (const auto store = weak.lock())
                        store->recordEvent(e.atMs, e.key, QStringLiteral("alert.") + e.stateId(),
                                           e.sentence());
                });
    }
    // Desktop notifications: a firing, and its resolution (the operator who
    // saw the first knows it is over without opening the console).
    auto *notifier = new DesktopNotifier(this);
    connect(engine, &AlertEngine::transition, notifier, &DesktopNotifier::notify);
    connect(notifier, &DesktopNotifier::trayActivated, this, [this] {
        showNormal();
        raise();
        activateWindow();
    });
    connect(notifier, &DesktopNotifier::messageClicked, this, [this] {
        showPage(m_stack->indexOf(m_alertsPage)); // where the notification is listed
        showNormal();
        raise();
        activateWindow();
    });
    notifier->tray(); // the icon from the start when a tray is there
}

QStringList MainWindow::pageNames() const
{
    QStringList names;
    for (int i = 0; i < m_pages->count(); ++i)
        names << m_pages->item(i)->data(Qt::UserRole).toString();
    return names;
}

void MainWindow::showPage(int index)
{
    m_pages->setCurrentRow(index);
}

int MainWindow::currentPage() const
{
    return m_stack->currentIndex();
}

void MainWindow::updateSideList()
{
    // Each section's count, and a badge in the worst state's colour with how
    // many need attention; the states' words in the tooltip.
    const QHash<QString, SectionTally> tallies = m_tallier.tally(m_snapshot);
    const int iconSize = m_pages->iconSize().width();
    for (SectionPage *page : std::as_const(m_sectionPages)) {
        QListWidgetItem *item = m_pages->item(m_stack->indexOf(page));
        if (!item)
            continue;
        const SectionTally t = tallies.value(page->section().id);
        item->setText(
            QStringLiteral("%1  %2").arg(item->data(Qt::UserRole).toString()).arg(t.objects));
        // Offline the states are the last read, going stale: a grey badge
        // without a count, not totals that read as so many problems.
        item->setIcon(m_offline ? badgeIcon(Severity::Muted, 0, m_pages->palette(), iconSize)
                                : badgeIcon(t.worst, t.attention, m_pages->palette(), iconSize));
        item->setToolTip(ConsoleNavigation::withShortcut(
            m_offline ? tr("States unknown while disconnected; last read: %1").arg(t.toolTip())
                      : t.toolTip(),
            m_pages->row(item)));
    }
    // Autodetection's pages: how many rows each lists.
    const auto counted = [this](QWidget *page, int n) {
        if (QListWidgetItem *item = m_pages->item(m_stack->indexOf(page)))
            item->setText(QStringLiteral("%1  %2").arg(item->data(Qt::UserRole).toString()).arg(n));
    };
    counted(m_unconfirmed, m_unconfirmed->count());
    counted(m_otherKeys, m_otherKeys->count());
    // Every entry indented alike: a page added before the list had its icon
    // size got an empty icon, which takes no room.
    QPixmap blank(m_pages->iconSize());
    blank.fill(Qt::transparent);
    for (int i = 0; i < m_pages->count(); ++i) {
        if (m_pages->item(i)->icon().isNull())
            m_pages->item(i)->setIcon(QIcon(blank));
    }
}

int MainWindow::pageOf(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? m_stack->indexOf(page) : -1;
}

QWidget *MainWindow::page(int index) const
{
    return m_stack->widget(index);
}

SectionPage *MainWindow::sectionPage(const QString &section) const
{
    for (SectionPage *page : m_sectionPages) {
        if (page->section().id == section)
            return page;
    }
    return nullptr;
}

ObjectTableModel *MainWindow::model(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? page->model() : nullptr;
}

ChartPanel *MainWindow::chart(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? page->chart() : nullptr;
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

QTableView *MainWindow::table(const QString &section) const
{
    SectionPage *page = sectionPage(section);
    return page ? page->table() : nullptr;
}

void MainWindow::selectRow(const QString &section, int row)
{
    if (SectionPage *page = sectionPage(section))
        page->selectRow(row);
}

bool MainWindow::exportCsv(const QString &section, const QString &fileName) const
{
    SectionPage *page = sectionPage(section);
    return page && page->exportCsv(fileName);
}

void MainWindow::watchSelection(const QByteArray &latest)
{
    QList<QByteArray> keys;
    for (SectionPage *page : std::as_const(m_sectionPages)) {
        if (const ObjectState *s = page->selected())
            keys << s->object.key;
    }
    QMetaObject::invokeMethod(m_monitor, [monitor = m_monitor, keys, latest] {
        monitor->setWatched(keys);
        monitor->setDetailKey(latest);
    });
}

void MainWindow::onSnapshot(const Snapshot &snapshot)
{
    m_snapshot = std::make_shared<const Snapshot>(snapshot);
    for (SectionPage *page : std::as_const(m_sectionPages))
        page->setSnapshot(m_snapshot);
    m_unconfirmed->setSnapshot(m_snapshot);
    m_otherKeys->setSnapshot(m_snapshot);
    updateSideList();
    if (const ConnectionStatus &c = snapshot.server.primary().connection; c != m_connection)
        showConnection(c);
    // A restart or master switch: said until dismissed, below a connection
    // fault or an action's outcome.
    const bool worldChanged = m_worldNotice.update(snapshot.server);
    if ((worldChanged || m_bannerKind == BannerKind::None)
        && (m_bannerKind == BannerKind::None || m_bannerKind == BannerKind::World)) {
        if (const auto notice = m_worldNotice.current())
            showBanner(BannerKind::World, notice->title, notice->message, notice->advice);
        else if (m_bannerKind == BannerKind::World)
            showBanner(BannerKind::None, {}, {}, {});
    }
    m_dirty = true;
}

void MainWindow::onTimer()
{
    const ServerStatus &server = m_snapshot->server;
    if (m_connection.state == RedisConnection::State::Reconnecting
        && m_connection.nextAttemptAtMs > 0) {
        m_stateLabel->setText(ConnectionWords::reconnecting(m_connection.nextAttemptAtMs
                                                            - QDateTime::currentMSecsSinceEpoch()));
    }
    // Offline the server's clock is unknown: the last reading's time, so
    // nothing is projected on the desktop's clock.
    const qint64 serverNow = m_offline && server.timeMs > 0
                                 ? server.timeMs
                                 : QDateTime::currentMSecsSinceEpoch() + server.clockOffsetMs;
    if (server.timeMs > 0) {
        const NodeStatus &node = server.primary();
        m_ageLabel->setText(
            tr("reading %1 old")
                .arg(formatMs(std::max<qint64>(0, QDateTime::currentMSecsSinceEpoch()
                                                      + server.clockOffsetMs - server.timeMs))));
        m_offsetLabel->setText(tr("clock offset %1 ms").arg(server.clockOffsetMs));
        m_offsetLabel->setToolTip(tr("Server clock minus this machine's clock; window maths use "
                                     "the server's clock."));
        m_serverLabel->setText(
            node.version.isEmpty()
                ? tr("Redis (version unknown)")
                : tr("%1 %2 %3")
                      .arg(node.serverName.isEmpty() ? QStringLiteral("Redis") : node.serverName,
                           node.version, node.role));
        m_eventsLabel->setText(ConnectionWords::events(server, m_offline));
        m_eventsLabel->setToolTip(ConnectionWords::eventsToolTip(server));
    }
    // The Nodes page sees every snapshot: a failover shows when it happens.
    if (m_dirty) {
        m_nodesPage->update(*m_snapshot);
        m_overview->record(m_snapshot); // the queues' chart keeps its live history
    }
    // Only what is on screen is redrawn.
    const bool changed = m_dirty;
    m_dirty = false;
    if (auto *page = qobject_cast<SectionPage *>(m_stack->currentWidget()))
        page->refresh(serverNow, changed);
    else if (m_stack->currentWidget() == m_overview && changed)
        m_overview->update(*m_snapshot, m_everReady);
}

QString MainWindow::bannerText() const
{
    return m_banner->isHidden() ? QString() : m_bannerText->text();
}

void MainWindow::showBanner(BannerKind kind, const QString &title, const QString &message,
                            const QString &advice)
{
    m_bannerKind = kind;
    if (kind == BannerKind::None) {
        m_banner->hide();
        m_bannerText->clear();
        return;
    }
    // Connection and Offline: red, until the connection is back or another
    // is made. Action: amber, until dismissed or the next action's outcome.
    // Dark text on the light fill in either palette.
    const bool connection = kind == BannerKind::Connection || kind == BannerKind::Offline;
    m_banner->setStyleSheet(
        connection ? QStringLiteral("#faultBanner { background: #fdecea; color: #202124; "
                                    "border: 1px solid #d93025; border-radius: 4px; } "
                                    "#faultBanner QLabel { color: #202124; }")
                   : QStringLiteral("#faultBanner { background: #fef7e0; color: #202124; "
                                    "border: 1px solid #f9ab00; border-radius: 4px; } "
                                    "#faultBanner QLabel { color: #202124; }"));
    m_bannerConnect->setVisible(connection);
    m_bannerDismiss->setVisible(kind == BannerKind::Action || kind == BannerKind::World);
    m_bannerText->setText(
        QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
            .arg(title.toHtmlEscaped(), message.toHtmlEscaped(), advice.toHtmlEscaped()));
    m_banner->show();
}

void MainWindow::showMessage(const QString &text, int timeoutMs)
{
    m_lastOutcome = text;
    statusBar()->showMessage(text, timeoutMs);
}

void MainWindow::showOutcome(const ActionOutcome &outcome, const QString &action)
{
    m_lastOutcome = outcome.message;
    if (outcome.result == ActionOutcome::Result::Unknown) {
        // Not a passing status message: a reconnect must not wipe it.
        showBanner(BannerKind::Action, tr("%1 may or may not have run.").arg(action),
                   outcome.message,
                   tr("Look at what it acts on (it refreshes by itself once the connection is "
                      "back) before running it again; the attempt is in the audit log."));
        return;
    }
    if (m_bannerKind == BannerKind::Action)
        showBanner(BannerKind::None, {}, {}, {});
}

void MainWindow::showConnection(const ConnectionStatus &status)
{
    m_connection = status;
    // The sentence without its attempt countdown (the state label counts down).
    const QString message = ConnectionWords::withoutAttempt(status.message);
    QString text;
    switch (status.state) {
    case RedisConnection::State::Disconnected:
        text = tr("Disconnected");
        break;
    case RedisConnection::State::Connecting:
        text = tr("Connecting…");
        break;
    case RedisConnection::State::Ready:
        text = tr("Connected");
        break;
    case RedisConnection::State::Reconnecting:
        text = tr("Reconnecting…");
        break;
    case RedisConnection::State::Failed:
        text = tr("Failed");
        break;
    }
    if (QAction *disconnect = findChild<QAction *>(QStringLiteral("disconnect")))
        disconnect->setEnabled(status.state != RedisConnection::State::Disconnected
                               && status.state != RedisConnection::State::Failed);
    // What a final failure is, from RedisConnection's sentence (it has no
    // error code of its own): authentication and TLS need the operator.
    const bool auth = message.contains(QLatin1String("Authentication"))
                      || message.contains(QLatin1String("requires a password"))
                      || message.contains(QLatin1String("WRONGPASS"))
                      || message.contains(QLatin1String("NOAUTH"));
    const bool tls = !auth
                     && (message.contains(QLatin1String("TLS"))
                         || message.contains(QLatin1String("certificate"))
                         || message.contains(QLatin1String("CA file")));
    if (status.state == RedisConnection::State::Failed && auth) {
        text = tr("Authentication failed");
        showBanner(BannerKind::Connection, tr("Not connected: the server refused the credentials."),
                   message,
                   tr("Check the user name and password in File › Connect… (or --user/--pass, "
                      "REDISCLI_AUTH); for an ACL user, check that it is enabled and may "
                      "AUTH. Nothing below is a reading until the connection is "
                      "authenticated."));
    } else if (status.state == RedisConnection::State::Failed && tls) {
        text = tr("TLS failed");
        showBanner(BannerKind::Connection,
                   tr("Not connected: the TLS connection could not be set up."), message,
                   tr("Check that the port speaks TLS, the CA that signed the server's "
                      "certificate (--cacert), the name the certificate is for (--sni), and "
                      "the client certificate and key if the server asks for one (--cert, "
                      "--key), in File › Connect…."));
    } else if ((status.state == RedisConnection::State::Ready
                || status.state == RedisConnection::State::Connecting)
               && m_bannerKind == BannerKind::Connection) {
        showBanner(BannerKind::None, {}, {}, {});
    }
    if (status.state == RedisConnection::State::Ready && !m_everReady) {
        m_everReady = true;
        m_dirty = true; // the overview shows figures from now on
    }
    // Not connected: say so where the figures are, grey them and disable
    // every action (a confirmation that can only fail is a surprise).
    QString offline;
    if (status.state != RedisConnection::State::Ready) {
        const qint64 lastMs = m_snapshot && m_snapshot->server.timeMs > 0
                                  ? m_snapshot->server.timeMs - m_snapshot->server.clockOffsetMs
                                  : -1;
        offline = ConnectionWords::offline(status.state, lastMs);
        if (m_everReady && m_bannerKind != BannerKind::Connection
            && m_bannerKind != BannerKind::Action)
            showBanner(BannerKind::Offline, offline, message,
                       tr("Figures are the last ones read and actions are disabled until the "
                          "connection is back (File › Connect… to connect again)."));
    } else if (m_bannerKind == BannerKind::Offline) {
        showBanner(BannerKind::None, {}, {}, {});
    }
    for (SectionPage *page : std::as_const(m_sectionPages)) {
        page->setOffline(offline);
        if (auto *proxy = qobject_cast<FamilyProxyModel *>(page->table()->model()))
            proxy->setTimesUnknown(!offline.isEmpty());
    }
    m_unconfirmed->setOffline(offline);
    if (m_offline != !offline.isEmpty()) {
        m_offline = !offline.isEmpty();
        updateSideList();
    }
    m_stateLabel->setText(text);
    m_stateLabel->setToolTip(message);
    // Only the current state: a reconnect clears the last attempt's sentence
    // (and only that: an action's outcome shown since stays).
    if (message.isEmpty() || status.state == RedisConnection::State::Ready) {
        if (!m_stateMessage.isEmpty() && statusBar()->currentMessage() == m_stateMessage)
            statusBar()->clearMessage();
        m_stateMessage.clear();
    } else if (statusBar()->currentMessage().isEmpty()
               || statusBar()->currentMessage() == m_stateMessage) {
        // Never over an action's outcome: the connection's sentence is in
        // the state label's tooltip too.
        statusBar()->showMessage(message, 15000);
        m_stateMessage = message;
    }
}

void MainWindow::act(const ScriptCall &call)
{
    // A batch says how many match now: counted (one bounded round trip)
    // before its confirmation opens, never on this thread's time.
    if (!m_options.readOnly && MatchCount::counts({call})) {
        MatchCount::read(m_client, {call}, serverNowMs(), this,
                         [this, call](const MatchCount::Result &r) {
                             confirmAndRun(call, MatchCount::sentence(r, {call}));
                         });
        return;
    }
    confirmAndRun(call, QString());
}

qint64 MainWindow::serverNowMs() const
{
    return QDateTime::currentMSecsSinceEpoch()
           + (m_snapshot ? m_snapshot->server.clockOffsetMs : 0);
}

void MainWindow::confirmAndRun(const ScriptCall &call, const QString &matchNow)
{
    if (m_options.readOnly) { // buttons are disabled; the engine refuses too
        m_actions->run(call, false, this, [this](const ActionOutcome &o) {
            showMessage(o.message);
            Q_EMIT actionFinished(o.message);
        });
        return;
    }
    if (!ConfirmActionDialog::confirm(call, this, matchNow)) {
        showMessage(tr("Cancelled: nothing was sent."), 5000);
        Q_EMIT actionFinished(m_lastOutcome);
        return;
    }
    m_actions->run(call, false, this, [this, call](const ActionOutcome &o) {
        showOutcome(o, call.action);
        statusBar()->showMessage(o.message, 10000);
        QMetaObject::invokeMethod(m_monitor, &Monitor::refreshNow);
        for (SectionPage *page : std::as_const(m_sectionPages))
            page->reloadJobs(); // the job lists show where the jobs went
        if (o.result == ActionOutcome::Result::Refused && o.forceable && !call.force) {
            // The target is not what the console says it is: only a second,
            // explicit confirmation (audited as forced) acts on it anyway.
            if (ConfirmActionDialog::confirmForce(call, o.message, this)) {
                act(call.forced());
                return;
            }
        }
        if (o.result == ActionOutcome::Result::Done && !call.issued.isEmpty()) {
            IssuedDialog shown(call.keys.value(0), call.issued, this);
            shown.exec();
        }
        Q_EMIT actionFinished(o.message);
    });
}

void MainWindow::actOnEach(const QList<ScriptCall> &calls)
{
    if (calls.isEmpty())
        return;
    if (calls.size() == 1 || m_options.readOnly) { // read-only: the engine's refusal, once
        act(calls.first());
        return;
    }
    if (MatchCount::counts(calls)) {
        MatchCount::read(m_client, calls, serverNowMs(), this,
                         [this, calls](const MatchCount::Result &r) {
                             confirmAndRunEach(calls, MatchCount::sentence(r, calls));
                         });
        return;
    }
    confirmAndRunEach(calls, QString());
}

void MainWindow::confirmAndRunEach(const QList<ScriptCall> &calls, const QString &matchNow)
{
    QStringList jobs;
    for (const ScriptCall &call : calls)
        jobs << call.summary;
    const QString what
        = tr("%1 on %2:")
              .arg(calls.first().title.isEmpty() ? calls.first().action : calls.first().title,
                   itemsOf(calls))
          + QLatin1Char('\n') + jobs.mid(0, 8).join(QLatin1Char('\n'))
          + (jobs.size() > 8 ? tr("\n… and %n more.", nullptr, int(jobs.size() - 8)) : QString());
    if (!ConfirmActionDialog::confirmMany(calls, what, this, matchNow)) {
        showMessage(tr("Cancelled: nothing was sent."), 5000);
        Q_EMIT actionFinished(m_lastOutcome);
        return;
    }
    runEach(calls, 0, {}, {});
}

// "2 jobs", "3 tokens": what a selection's calls act on. Calls on one key
// (a queue) act on its jobs; calls on a key each act on that key, named by
// its role in the script ("token").
QString MainWindow::itemsOf(const QList<ScriptCall> &calls)
{
    QSet<QByteArray> keys;
    for (const ScriptCall &call : calls)
        keys.insert(call.keys.value(0));
    QString item = QStringLiteral("job");
    if (calls.size() > 1 && keys.size() == calls.size()
        && !calls.first().keyRoles.value(0).isEmpty())
        item = calls.first().keyRoles.value(0);
    return QStringLiteral("%1 %2%3")
        .arg(calls.size())
        .arg(item, calls.size() == 1 ? QString() : QStringLiteral("s"));
}

// One call after another (the next sent once the last answered), so the
// outcome of each is known; a reply lost to the connection stops the rest.
void MainWindow::runEach(const QList<ScriptCall> &calls, qsizetype next, const QStringList &done,
                         const QStringList &notDone)
{
    const auto finish = [this, calls](const QStringList &ok, const QStringList &not_,
                                      const QString &stopped) {
        QString text
            = tr("%1: %2 of %3 done.").arg(calls.first().action).arg(ok.size()).arg(itemsOf(calls));
        if (!not_.isEmpty())
            text += QLatin1Char(' ') + tr("Not done: %1").arg(not_.join(QStringLiteral("; ")));
        if (!stopped.isEmpty())
            text += QLatin1Char(' ') + stopped;
        m_lastOutcome = text;
        statusBar()->showMessage(text, 15000);
        QMetaObject::invokeMethod(m_monitor, &Monitor::refreshNow);
        for (SectionPage *page : std::as_const(m_sectionPages))
            page->reloadJobs();
        Q_EMIT actionFinished(text);
    };
    if (next >= calls.size()) {
        finish(done, notDone, {});
        return;
    }
    const ScriptCall call = calls.at(next);
    m_actions->run(call, false, this, [=, this](const ActionOutcome &o) {
        QStringList ok = done;
        QStringList not_ = notDone;
        if (o.result == ActionOutcome::Result::Done)
            ok << call.summary;
        else
            not_ << o.message;
        if (o.result == ActionOutcome::Result::Unknown) {
            showOutcome(o, call.action);
            finish(ok, not_, tr("Stopped: %n not sent.", nullptr, int(calls.size() - next - 1)));
            return;
        }
        runEach(calls, next + 1, ok, not_);
    });
}

} // namespace gatehouse
