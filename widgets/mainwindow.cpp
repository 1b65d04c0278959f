// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "chartpanel.h"
#include "objecttablemodel.h"
#include "tokendialog.h"

#include "actioninputdialog.h"
#include <actions/actionengine.h>
#include <monitor/monitor.h>

#include <patterns/limiters.h>
#include <patterns/lock/lockunit.h>
#include <patterns/patternregistry.h>
#include <patterns/reliable-queue/reliablequeueunit.h>
#include <patterns/resource-consumer/resourceconsumerunit.h>
#include <patterns/token-family/tokenfamilyunit.h>
#include <redis/redisclient.h>

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QFileDialog>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace gatehouse {

namespace {

// Server notes as HTML: each escaped, then joined by line breaks (escaping
// the joined text would print the breaks as "<br>").
QString escapedNotes(const QStringList &notes)
{
    QStringList escaped;
    escaped.reserve(notes.size());
    for (const QString &n : notes)
        escaped.append(n.toHtmlEscaped());
    return escaped.join(QStringLiteral("<br>"));
}

constexpr QSize s_sparkSize(80, 20);

// Draws an Overview item's sparkline (the polyline in SparklineRole) before
// its text, fresh at every paint: no pixmap and no icon, so nothing is left
// in QPixmapCache as the list is rebuilt every tick.
class SparklineDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QRect spark(opt.rect.left() + 2, opt.rect.center().y() - s_sparkSize.height() / 2,
                          s_sparkSize.width(), s_sparkSize.height());
        const bool selected = opt.state & QStyle::State_Selected;
        if (selected)
            painter->fillRect(opt.rect, opt.palette.brush(QPalette::Highlight));
        opt.rect.setLeft(spark.right() + 6);
        QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
        const QPolygonF line = index.data(MainWindow::SparklineRole).value<QPolygonF>();
        if (line.size() < 2)
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(QPen(
            opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Highlight), 1.2));
        painter->drawPolyline(line.translated(spark.topLeft()));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.rwidth() += s_sparkSize.width() + 8;
        size.setHeight(std::max(size.height(), s_sparkSize.height() + 2));
        return size;
    }
};
} // namespace

MainWindow::MainWindow(RedisClient *client, Monitor *monitor, ActionEngine *actions,
                       Options options, QWidget *parent)
    : QMainWindow(parent)
    , m_client(client)
    , m_monitor(monitor)
    , m_actions(actions)
    , m_options(options)
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
    // A page per section of the pattern registry: the four with pages of
    // their own, then a generic page for every other section (its patterns'
    // columns, items, figures and actions).
    for (const Section &section : PatternRegistry::instance().sections())
        m_models.insert(section.id, new ObjectTableModel(section.id, this));

    auto addPage = [this](QWidget *page, const QString &title, const QString &section) {
        m_stack->addWidget(page);
        m_pages->addItem(title);
        m_pageSections.append(section);
    };
    addPage(buildOverview(), tr("Overview"), QString());
    addPage(buildLimiters(), tr("Limiters"), QStringLiteral("limiter"));
    addPage(buildLocks(), tr("Locks"), QStringLiteral("lock"));
    addPage(buildTokens(), tr("Tokens"), QStringLiteral("token"));
    addPage(buildQueues(), tr("Queues"), QStringLiteral("queue"));
    for (const Section &section : PatternRegistry::instance().sections()) {
        if (!m_pageSections.contains(section.id))
            addPage(buildSectionPage(section), section.title, section.id);
    }
    addPage(buildAudit(), tr("Audit log"), QString());
    m_pages->setMaximumWidth(160);
    connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    connect(m_pages, &QListWidget::currentRowChanged, this, [this](int row) {
        if (!m_pageSections.value(row).isEmpty())
            syncModel(m_pageSections.value(row));
        m_dirty = true;
    });
    m_pages->setCurrentRow(0);
    auto *splitter = new QSplitter(this);
    splitter->addWidget(m_pages);
    splitter->addWidget(m_stack);
    splitter->setStretchFactor(1, 1);
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
    connect(m_bannerDismiss, &QPushButton::clicked, this,
            [this] { showBanner(BannerKind::None, {}, {}, {}); });
    bannerLayout->addWidget(m_bannerDismiss);
    m_banner->hide();
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(splitter, 1);
    setCentralWidget(central);

    // Status bar: state, server, events, age of the reading, clock offset, badges.
    statusBar()->addPermanentWidget(m_discoveryBar);
    m_discoveryBar->setMaximumWidth(180);
    m_discoveryBar->setFormat(tr("scanning %v / %m"));
    m_discoveryBar->hide();
    m_cancelDiscovery->setText(tr("Cancel"));
    m_cancelDiscovery->setToolTip(tr("Stop the key scan; what was found stays"));
    m_cancelDiscovery->hide();
    connect(m_cancelDiscovery, &QToolButton::clicked, m_monitor, &Monitor::cancelDiscovery);
    statusBar()->addPermanentWidget(m_cancelDiscovery);
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
    connect(m_client, &RedisClient::stateChanged, disconnectAction,
            [disconnectAction](RedisConnection::State state) {
                disconnectAction->setEnabled(state != RedisConnection::State::Disconnected
                                             && state != RedisConnection::State::Failed);
            });
    QAction *refresh = file->addAction(tr("&Refresh now"), this, [this] {
        QMetaObject::invokeMethod(m_monitor, &Monitor::refreshNow);
    });
    refresh->setShortcut(QKeySequence::Refresh);
    QAction *find = file->addAction(tr("&Find…"), this, [this] {
        showPage(1);
        m_limiterFilter->setFocus();
    });
    find->setShortcut(QKeySequence::Find);
    QAction *csv = file->addAction(tr("Export table as &CSV…"), this, [this] {
        static const QStringList s_pageSections{QString(),
                                                QStringLiteral("limiter"),
                                                QStringLiteral("lock"),
                                                QStringLiteral("token"),
                                                QStringLiteral("queue"),
                                                QString()};
        const QString section = s_pageSections.value(m_stack->currentIndex());
        if (section.isEmpty()) {
            statusBar()->showMessage(tr("Open a page with a table to export it."), 5000);
            return;
        }
        const QString file
            = QFileDialog::getSaveFileName(this, tr("Export table"), QString(), tr("CSV (*.csv)"));
        if (!file.isEmpty() && !exportCsv(section, file))
            statusBar()->showMessage(tr("Could not write %1.").arg(file), 8000);
    });
    csv->setShortcut(QKeySequence::Save);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    connect(m_monitor, &Monitor::snapshotReady, this, &MainWindow::onSnapshot);
    connect(m_monitor, &Monitor::discoveryProgress, this, [this](qint64 scanned, qint64 total) {
        m_discoveryBar->setRange(0, int(std::min<qint64>(total, INT_MAX)));
        m_discoveryBar->setValue(int(std::min<qint64>(scanned, INT_MAX)));
        m_discoveryBar->setVisible(scanned < total);
        m_cancelDiscovery->setVisible(scanned < total);
    });
    connect(m_monitor, &Monitor::discoveryFinished, this, [this] {
        m_discoveryBar->hide();
        m_cancelDiscovery->hide();
    });
    connect(m_client, &RedisClient::stateChanged, this, &MainWindow::showState);
    connect(m_actions, &ActionEngine::audited, this, &MainWindow::reloadAudit);
    showState(client->state(), client->errorString());

    m_timer.setInterval(500);
    connect(&m_timer, &QTimer::timeout, this, &MainWindow::onTimer);
    m_timer.start();

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1200, 800);
}

MainWindow::~MainWindow()
{
    QSettings().setValue(QStringLiteral("window/geometry"), saveGeometry());
}

QStringList MainWindow::pageNames() const
{
    QStringList names;
    for (int i = 0; i < m_pages->count(); ++i)
        names << m_pages->item(i)->text();
    return names;
}

void MainWindow::showPage(int index)
{
    m_pages->setCurrentRow(index);
}

QWidget *MainWindow::page(int index) const
{
    return m_stack->widget(index);
}

ObjectTableModel *MainWindow::model(const QString &section) const
{
    syncModel(section);
    return m_models.value(section);
}

void MainWindow::syncModel(const QString &section) const
{
    if (m_staleModels.remove(section))
        m_models.value(section)->applySnapshot(m_snapshot);
}

ChartPanel *MainWindow::chart(const QString &section) const
{
    return m_charts.value(section);
}

QTableView *MainWindow::table(const QString &section) const
{
    return m_tables.value(section);
}

void MainWindow::selectRow(const QString &section, int row)
{
    QTableView *view = m_tables.value(section);
    if (view && row < view->model()->rowCount())
        view->selectRow(row);
}

QPushButton *MainWindow::actionButton(const QString &text, QWidget *parent)
{
    auto *button = new QPushButton(text, parent);
    if (m_options.readOnly) {
        button->setEnabled(false);
        button->setToolTip(tr("Read-only mode: actions are disabled (started with --read-only)."));
    }
    m_actionButtons.append(button);
    return button;
}

QTableView *MainWindow::makeTable(const QString &section, QWidget *parent)
{
    auto *view = new QTableView(parent);
    auto *proxy = new QSortFilterProxyModel(view);
    proxy->setSourceModel(m_models.value(section));
    proxy->setSortRole(ObjectTableModel::SortRole);
    proxy->setFilterKeyColumn(0);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    view->setColumnWidth(0, 280);
    view->verticalHeader()->hide();
    m_tables.insert(section, view);
    return view;
}

const ObjectState *MainWindow::selected(const QString &section) const
{
    QTableView *view = m_tables.value(section);
    if (!view || !view->selectionModel())
        return nullptr;
    const QModelIndexList rows = view->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return nullptr;
    auto *proxy = static_cast<QSortFilterProxyModel *>(view->model());
    return m_models.value(section)->stateAt(proxy->mapToSource(rows.first()).row());
}

QWidget *MainWindow::buildOverview()
{
    auto *w = new QWidget(this);
    auto *layout = new QVBoxLayout(w);
    m_overviewCounts = new QLabel(w);
    m_overviewCounts->setTextFormat(Qt::RichText);
    layout->addWidget(m_overviewCounts);
    layout->addWidget(new QLabel(tr("Needs attention (click to open):"), w));
    m_hot = new QListWidget(w);
    m_hot->setItemDelegate(new SparklineDelegate(m_hot));
    connect(m_hot, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const QString section = item->data(Qt::UserRole).toString();
        const QByteArray key = item->data(Qt::UserRole + 1).toByteArray();
        const int pageIndex = int(QStringList{QStringLiteral("limiter"), QStringLiteral("lock"),
                                              QStringLiteral("token"), QStringLiteral("queue")}
                                      .indexOf(section))
                              + 1;
        showPage(pageIndex);
        QTableView *view = m_tables.value(section);
        auto *proxy = static_cast<QSortFilterProxyModel *>(view->model());
        const int row = m_models.value(section)->rowOf(key);
        if (row >= 0)
            view->selectRow(proxy->mapFromSource(m_models.value(section)->index(row, 0)).row());
    });
    connect(m_hot, &QListWidget::itemClicked, m_hot, &QListWidget::itemActivated);
    layout->addWidget(m_hot, 1);
    return w;
}

QWidget *MainWindow::buildLimiters()
{
    auto *w = new QWidget(this);
    auto *layout = new QVBoxLayout(w);
    auto *bar = new QHBoxLayout;
    m_limiterFilter = new QLineEdit(w);
    m_limiterFilter->setPlaceholderText(tr("Filter by key"));
    m_limiterFilter->setClearButtonEnabled(true);
    bar->addWidget(m_limiterFilter, 1);
    QPushButton *reset = actionButton(tr("Reset limiter…"), w);
    reset->setObjectName(QStringLiteral("resetLimiter"));
    bar->addWidget(reset);
    layout->addLayout(bar);
    auto *splitter = new QSplitter(Qt::Vertical, w);
    QTableView *view = makeTable(QStringLiteral("limiter"), splitter);
    connect(m_limiterFilter, &QLineEdit::textChanged, view->model(), [view](const QString &text) {
        static_cast<QSortFilterProxyModel *>(view->model())->setFilterFixedString(text);
    });
    auto *charts = new ChartPanel(m_monitor, QStringLiteral("limiter"), splitter);
    m_charts.insert(QStringLiteral("limiter"), charts);
    // A seed 003 resource expands into its consumers.
    m_consumers = new QListWidget(splitter);
    m_consumers->setObjectName(QStringLiteral("consumers"));
    m_consumers->setMaximumHeight(110);
    m_consumers->hide();
    splitter->addWidget(view);
    splitter->addWidget(m_consumers);
    splitter->addWidget(charts);
    layout->addWidget(splitter, 1);
    connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const ObjectState *s = selected(QStringLiteral("limiter"));
        m_charts.value(QStringLiteral("limiter"))->setObject(s);
        const QByteArray key = s ? s->object.key : QByteArray();
        QMetaObject::invokeMethod(m_monitor,
                                  [monitor = m_monitor, key] { monitor->setDetailKey(key); });
        updateConsumers();
    });
    connect(reset, &QPushButton::clicked, this, [this] {
        const ObjectState *s = selected(QStringLiteral("limiter"));
        if (!s)
            return;
        act(limiterReset(s->object));
    });
    return w;
}

QWidget *MainWindow::buildLocks()
{
    auto *w = new QWidget(this);
    auto *layout = new QVBoxLayout(w);
    auto *bar = new QHBoxLayout;
    QPushButton *release = actionButton(tr("Force release…"), w);
    release->setObjectName(QStringLiteral("forceRelease"));
    QPushButton *extend = actionButton(tr("Extend…"), w);
    extend->setObjectName(QStringLiteral("extendLock"));
    m_extendTtl = new QSpinBox(w);
    m_extendTtl->setRange(100, 24 * 3600 * 1000);
    m_extendTtl->setValue(30000);
    m_extendTtl->setSuffix(tr(" ms"));
    bar->addStretch(1);
    bar->addWidget(release);
    bar->addWidget(extend);
    bar->addWidget(m_extendTtl);
    layout->addLayout(bar);
    layout->addWidget(makeTable(QStringLiteral("lock"), w), 1);
    connect(release, &QPushButton::clicked, this, [this] {
        const ObjectState *s = selected(QStringLiteral("lock"));
        if (s && s->object.kind == LockUnit::Kind && s->reading.isOk())
            act(LockUnit::forceRelease(s->object, s->reading.token));
    });
    connect(extend, &QPushButton::clicked, this, [this] {
        const ObjectState *s = selected(QStringLiteral("lock"));
        if (s && s->object.kind == LockUnit::Kind && s->reading.isOk())
            act(LockUnit::extend(s->object, s->reading.token, m_extendTtl->value()));
    });
    return w;
}

QWidget *MainWindow::buildTokens()
{
    auto *w = new QWidget(this);
    auto *layout = new QVBoxLayout(w);
    auto *bar = new QHBoxLayout;
    QPushButton *issue = actionButton(tr("Issue token…"), w);
    issue->setObjectName(QStringLiteral("issueToken"));
    m_revokeKey = new QLineEdit(w);
    m_revokeKey->setPlaceholderText(tr("Token key to revoke, e.g. code:abc123"));
    QPushButton *revoke = actionButton(tr("Revoke…"), w);
    revoke->setObjectName(QStringLiteral("revokeToken"));
    bar->addWidget(issue);
    bar->addStretch(1);
    bar->addWidget(m_revokeKey, 2);
    bar->addWidget(revoke);
    layout->addLayout(bar);
    layout->addWidget(makeTable(QStringLiteral("token"), w), 1);
    connect(issue, &QPushButton::clicked, this, &MainWindow::issueToken);
    connect(revoke, &QPushButton::clicked, this, [this] {
        const QByteArray key = m_revokeKey->text().trimmed().toUtf8();
        if (key.isEmpty())
            return;
        QList<QByteArray> families;
        for (const ObjectState &o : std::as_const(m_snapshot.objects)) {
            if (o.object.kind == TokenFamilyUnit::Kind)
                families << o.object.key;
        }
        act(TokenFamilyUnit::revoke(key, families));
    });
    return w;
}

QWidget *MainWindow::buildQueues()
{
    auto *w = new QWidget(this);
    auto *layout = new QVBoxLayout(w);
    auto *bar = new QHBoxLayout;
    QPushButton *requeue = actionButton(tr("Requeue job…"), w);
    requeue->setObjectName(QStringLiteral("requeueJob"));
    QPushButton *requeueAll = actionButton(tr("Requeue all stuck…"), w);
    requeueAll->setObjectName(QStringLiteral("requeueStuck"));
    QPushButton *dead = actionButton(tr("Dead-letter job…"), w);
    dead->setObjectName(QStringLiteral("deadLetter"));
    bar->addStretch(1);
    bar->addWidget(requeue);
    bar->addWidget(requeueAll);
    bar->addWidget(dead);
    layout->addLayout(bar);
    auto *splitter = new QSplitter(Qt::Vertical, w);
    QTableView *view = makeTable(QStringLiteral("queue"), splitter);
    splitter->addWidget(view);
    m_stuck = new QTableWidget(0, 3, splitter);
    m_stuck->setHorizontalHeaderLabels(
        {tr("In-flight job (oldest first)"), tr("Age"), tr("Age from")});
    m_stuck->horizontalHeader()->setStretchLastSection(true);
    m_stuck->setColumnWidth(0, 420);
    m_stuck->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_stuck->setSelectionMode(QAbstractItemView::SingleSelection);
    m_stuck->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_stuck->verticalHeader()->hide();
    splitter->addWidget(m_stuck);
    auto *charts = new ChartPanel(m_monitor, QStringLiteral("queue"), splitter);
    m_charts.insert(QStringLiteral("queue"), charts);
    splitter->addWidget(charts);
    layout->addWidget(splitter, 1);
    connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_charts.value(QStringLiteral("queue"))->setObject(selected(QStringLiteral("queue")));
        updateStuckItems();
    });
    auto selectedJob = [this]() -> QByteArray {
        const auto rows = m_stuck->selectionModel()->selectedRows();
        return rows.isEmpty()
                   ? QByteArray()
                   : m_stuck->item(rows.first().row(), 0)->data(Qt::UserRole).toByteArray();
    };
    connect(requeue, &QPushButton::clicked, this, [this, selectedJob] {
        const ObjectState *s = selected(QStringLiteral("queue"));
        const QByteArray job = selectedJob();
        if (s && !job.isEmpty())
            act(ReliableQueueUnit::requeue(s->object, job));
    });
    connect(dead, &QPushButton::clicked, this, [this, selectedJob] {
        const ObjectState *s = selected(QStringLiteral("queue"));
        const QByteArray job = selectedJob();
        if (s && !job.isEmpty())
            act(ReliableQueueUnit::deadLetter(s->object, job));
    });
    connect(requeueAll, &QPushButton::clicked, this, [this] {
        const ObjectState *s = selected(QStringLiteral("queue"));
        if (!s)
            return;
        const ScriptCall call
            = ReliableQueueUnit::requeueStuck(s->object, s->object.params.stuckAfterMs, 100);
        if (call.isValid()) {
            act(call);
            return;
        }
        // No claims set: requeue the stuck items Gatehouse has been watching, one
        // atomic script each (ages from first sight).
        const qint64 now = m_snapshot.server.timeMs;
        for (const InFlightItem &item : s->reading.items) {
            if (s->reading.ageAt(item.ageMs, now) >= s->object.params.stuckAfterMs) {
                act(ReliableQueueUnit::requeue(s->object, item.job));
                return; // one confirmation per job: the operator sees each one
            }
        }
        m_lastOutcome = tr("No job in \"%1\" is stuck.").arg(printableBytes(s->object.key));
        statusBar()->showMessage(m_lastOutcome, 8000);
    });
    return w;
}

QWidget *MainWindow::buildSectionPage(const Section &section)
{
    auto *w = new QWidget(this);
    w->setObjectName(section.id + QStringLiteral("Page"));
    auto *layout = new QVBoxLayout(w);
    auto *bar = new QHBoxLayout;
    bar->addStretch(1);
    // Every action the section's patterns offer, once each; a click acts on
    // the selected object if its pattern offers it.
    QStringList ids;
    QStringList itemHeaders;
    for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(section.id)) {
        if (itemHeaders.isEmpty())
            itemHeaders = unit->itemHeaders();
        for (const PatternAction &action : unit->actions()) {
            if (ids.contains(action.id))
                continue;
            ids << action.id;
            QPushButton *button = actionButton(action.label, w);
            button->setObjectName(action.objectName);
            bar->addWidget(button);
            connect(
                button, &QPushButton::clicked, this,
                [this, sectionId = section.id, id = action.id] { actOnSelected(sectionId, id); });
        }
    }
    layout->addLayout(bar);
    auto *splitter = new QSplitter(Qt::Vertical, w);
    QTableView *view = makeTable(section.id, splitter);
    splitter->addWidget(view);
    if (!itemHeaders.isEmpty()) {
        auto *items = new QTableWidget(0, int(itemHeaders.size()), splitter);
        items->setObjectName(section.id + QStringLiteral("Items"));
        items->setHorizontalHeaderLabels(itemHeaders);
        items->horizontalHeader()->setStretchLastSection(true);
        items->setColumnWidth(0, 360);
        items->setSelectionBehavior(QAbstractItemView::SelectRows);
        items->setSelectionMode(QAbstractItemView::SingleSelection);
        items->setEditTriggers(QAbstractItemView::NoEditTriggers);
        items->verticalHeader()->hide();
        splitter->addWidget(items);
        m_items.insert(section.id, items);
    }
    auto *charts = new ChartPanel(m_monitor, section.id, splitter);
    m_charts.insert(section.id, charts);
    splitter->addWidget(charts);
    layout->addWidget(splitter, 1);
    connect(view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this, id = section.id] {
                const ObjectState *s = selected(id);
                QMetaObject::invokeMethod(
                    m_monitor, [monitor = m_monitor, key = s ? s->object.key : QByteArray()] {
                        monitor->setDetailKey(key);
                    });
                m_charts.value(id)->setObject(s);
                updateSectionItems(id);
            });
    return w;
}

void MainWindow::updateSectionItems(const QString &section)
{
    QTableWidget *table = m_items.value(section);
    if (!table)
        return;
    const ObjectState *s = selected(section);
    const int current = table->selectionModel()->selectedRows().isEmpty()
                            ? -1
                            : table->selectionModel()->selectedRows().first().row();
    const QList<QStringList> rows
        = s ? PatternUnit::of(s->object.kind).items(*s, m_snapshot.server.timeMs)
            : QList<QStringList>();
    table->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        for (int c = 0; c < rows.at(r).size() && c < table->columnCount(); ++c)
            table->setItem(r, c, new QTableWidgetItem(rows.at(r).at(c)));
    }
    if (current >= 0 && current < rows.size())
        table->selectRow(current);
}

void MainWindow::actOnSelected(const QString &section, const QString &actionId)
{
    const ObjectState *s = selected(section);
    if (!s) {
        m_lastOutcome = tr("Select one in the table first.");
        statusBar()->showMessage(m_lastOutcome, 5000);
        return;
    }
    const PatternUnit &unit = PatternUnit::of(s->object.kind);
    const QList<PatternAction> actions = unit.actions();
    const auto it = std::find_if(actions.cbegin(), actions.cend(),
                                 [&](const PatternAction &a) { return a.id == actionId; });
    if (it == actions.cend()) {
        m_lastOutcome = tr("A %1 does not offer this action.").arg(unit.title());
        statusBar()->showMessage(m_lastOutcome, 8000);
        return;
    }
    int item = -1;
    if (QTableWidget *items = m_items.value(section)) {
        const auto rows = items->selectionModel()->selectedRows();
        item = rows.isEmpty() ? -1 : rows.first().row();
    }
    const ObjectState shown = *s; // the state as the operator saw it
    QString problem;
    const std::optional<ActionRequest> request
        = ActionInputDialog::ask(unit, *it, &shown, item, {}, this, &problem);
    if (!request) {
        m_lastOutcome = problem.isEmpty() ? tr("Cancelled: nothing was sent.") : problem;
        statusBar()->showMessage(m_lastOutcome, 8000);
        Q_EMIT actionFinished(m_lastOutcome);
        return;
    }
    const ScriptCall call = it->build(*request);
    if (!call.isValid()) {
        m_lastOutcome = call.refusal;
        statusBar()->showMessage(m_lastOutcome, 8000);
        Q_EMIT actionFinished(m_lastOutcome);
        return;
    }
    act(call);
}

QWidget *MainWindow::buildAudit()
{
    auto *w = new QWidget(this);
    auto *layout = new QVBoxLayout(w);
    layout->addWidget(new QLabel(tr("Every action attempted from this machine, newest first "
                                    "(%1).")
                                     .arg(m_actions->auditLogPath()),
                                 w));
    m_audit = new QTableWidget(0, 6, w);
    m_audit->setHorizontalHeaderLabels(
        {tr("Time"), tr("User"), tr("Action"), tr("Keys"), tr("Outcome"), tr("Message")});
    m_audit->horizontalHeader()->setStretchLastSection(true);
    m_audit->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_audit->verticalHeader()->hide();
    layout->addWidget(m_audit, 1);
    reloadAudit();
    return w;
}

void MainWindow::reloadAudit()
{
    // Read on a worker: the GUI thread never touches the file. Each read has
    // its own context object and a newer read deletes the older one's, so a
    // slow older read never overwrites a newer one.
    delete m_audit->findChild<QObject *>(QStringLiteral("auditRead"), Qt::FindDirectChildrenOnly);
    auto *read = new QObject(m_audit);
    read->setObjectName(QStringLiteral("auditRead"));
    AuditLog::readTailAsync(
        m_actions->auditLogPath(), 500, read, [this, read](const QList<QJsonObject> &entries) {
            read->deleteLater();
            m_audit->setRowCount(int(entries.size()));
            for (int i = 0; i < entries.size(); ++i) {
                const QJsonObject &e = entries.at(entries.size() - 1 - i);
                QStringList keys;
                for (const QJsonValue &k : e.value(QLatin1String("keys")).toArray())
                    keys << (k.isString() ? k.toString() : QStringLiteral("(binary)"));
                const QStringList cells{e.value(QLatin1String("time")).toString(),
                                        e.value(QLatin1String("user")).toString(),
                                        e.value(QLatin1String("action")).toString(),
                                        keys.join(QLatin1String(", ")),
                                        e.value(QLatin1String("outcome")).toString(),
                                        e.value(QLatin1String("message")).toString()};
                for (int c = 0; c < cells.size(); ++c)
                    m_audit->setItem(i, c, new QTableWidgetItem(cells.at(c)));
            }
        });
}

bool MainWindow::exportCsv(const QString &section, const QString &fileName) const
{
    syncModel(section);
    QTableView *view = m_tables.value(section);
    if (!view)
        return false;
    auto quote = [](QString cell) {
        if (cell.contains(QLatin1Char(',')) || cell.contains(QLatin1Char('"'))
            || cell.contains(QLatin1Char('\n')))
            cell = QLatin1Char('"') + cell.replace(QLatin1Char('"'), QLatin1String("\"\""))
                   + QLatin1Char('"');
        return cell;
    };
    const QAbstractItemModel *model = view->model();
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    QStringList header;
    for (int c = 0; c < model->columnCount(); ++c)
        header << quote(model->headerData(c, Qt::Horizontal).toString());
    file.write(header.join(QLatin1Char(',')).toUtf8() + '\n');
    for (int r = 0; r < model->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model->columnCount(); ++c)
            cells << quote(model->index(r, c).data().toString());
        file.write(cells.join(QLatin1Char(',')).toUtf8() + '\n');
    }
    return file.commit();
}

QPolygonF MainWindow::sparkline(const QByteArray &key, const QString &figure) const
{
    // One point per pixel at most: the temporaries stay the same size as the
    // 15-minute history fills.
    const QList<QPointF> points = m_monitor->history(key, figure, s_sparkSize.width());
    QPolygonF line;
    if (points.size() < 2)
        return line;
    double lo = points.first().y(), hi = lo;
    for (const QPointF &p : points) {
        if (std::isnan(p.y()))
            continue;
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
    }
    const double x0 = points.first().x(), x1 = points.last().x();
    const double w = s_sparkSize.width() - 2, h = s_sparkSize.height() - 2;
    for (const QPointF &p : points) {
        if (std::isnan(p.y()))
            continue;
        line << QPointF((p.x() - x0) / std::max(1.0, x1 - x0) * w + 1,
                        h + 1 - (hi > lo ? (p.y() - lo) / (hi - lo) * h : h / 2));
    }
    return line;
}

void MainWindow::updateConsumers()
{
    m_consumers->clear();
    const ObjectState *s = selected(QStringLiteral("limiter"));
    if (!s || s->object.kind != ResourceConsumerUnit::Kind || !s->object.parent.isEmpty()) {
        m_consumers->hide();
        return;
    }
    for (const ObjectState &o : std::as_const(m_snapshot.objects)) {
        if (o.object.parent != s->object.key)
            continue;
        const Reading &r = o.reading;
        m_consumers->addItem(
            tr("consumer %1: %2 / %3 in window (%4)")
                .arg(printableBytes(o.object.key.mid(s->object.key.size())))
                .arg(r.inWindow)
                .arg(r.limit ? QString::number(*r.limit) : QStringLiteral("?"))
                .arg(r.occupancy() ? QStringLiteral("%1 %").arg(formatPercent(*r.occupancy()))
                                   : QStringLiteral("?")));
    }
    m_consumers->setVisible(m_consumers->count() > 0);
}

void MainWindow::act(const ScriptCall &call)
{
    if (m_options.readOnly) { // buttons are disabled; the engine refuses too
        m_actions->run(call, false, this, [this](const ActionOutcome &o) {
            m_lastOutcome = o.message;
            statusBar()->showMessage(o.message, 8000);
            Q_EMIT actionFinished(o.message);
        });
        return;
    }
    QMessageBox box(QMessageBox::Question, tr("Confirm: %1").arg(call.action), call.summary,
                    QMessageBox::Ok | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("confirmAction"));
    box.setInformativeText(tr("This will run exactly:"));
    box.setDetailedText(ActionEngine::describe(call));
    box.button(QMessageBox::Ok)->setText(tr("Run"));
    box.setDefaultButton(QMessageBox::Cancel);
    if (box.exec() != QMessageBox::Ok) {
        m_lastOutcome = tr("Cancelled: nothing was sent.");
        statusBar()->showMessage(m_lastOutcome, 5000);
        Q_EMIT actionFinished(m_lastOutcome);
        return;
    }
    m_actions->run(call, false, this, [this, call](const ActionOutcome &o) {
        showOutcome(o, call.action);
        statusBar()->showMessage(o.message, 10000);
        QMetaObject::invokeMethod(m_monitor, &Monitor::refreshNow);
        if (o.result == ActionOutcome::Result::Refused && o.forceable && !call.force) {
            // The target is not what the console says it is: only a second,
            // explicit confirmation (audited as forced) acts on it anyway.
            QMessageBox force(QMessageBox::Warning, tr("Refused: %1").arg(call.action), o.message,
                              QMessageBox::Cancel, this);
            force.setObjectName(QStringLiteral("forceAction"));
            force.setInformativeText(tr("Force it? The checks are skipped and the attempt is "
                                        "written to the audit log as forced."));
            QPushButton *run = force.addButton(tr("Force"), QMessageBox::DestructiveRole);
            force.setDefaultButton(QMessageBox::Cancel);
            force.exec();
            if (force.clickedButton() == run) {
                act(call.forced());
                return;
            }
        }
        Q_EMIT actionFinished(o.message);
    });
}

void MainWindow::issueToken()
{
    QStringList families;
    for (const ObjectState &o : std::as_const(m_snapshot.objects)) {
        if (o.object.kind == TokenFamilyUnit::Kind && !o.object.countedTokens)
            families << QString::fromUtf8(o.object.key);
    }
    TokenDialog dialog(families, this);
    dialog.setObjectName(QStringLiteral("tokenDialog"));
    if (dialog.exec() != QDialog::Accepted)
        return;
    PatternObject family;
    family.kind = TokenFamilyUnit::Kind;
    family.key = dialog.family();
    const QByteArray token = TokenFamilyUnit::newToken();
    const ScriptCall call
        = TokenFamilyUnit::issue(family, token, dialog.payload(), dialog.ttlSeconds());
    QMessageBox box(QMessageBox::Question, tr("Confirm: %1").arg(call.action), call.summary,
                    QMessageBox::Ok | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("confirmAction"));
    box.setDetailedText(ActionEngine::describe(call));
    if (box.exec() != QMessageBox::Ok)
        return;
    m_actions->run(call, false, this, [this, call, token](const ActionOutcome &o) {
        showOutcome(o, call.action);
        statusBar()->showMessage(
            o.result == ActionOutcome::Result::Done ? tr("Token issued.") : o.message, 10000);
        Q_EMIT actionFinished(o.message);
        if (o.result == ActionOutcome::Result::Done) {
            TokenShownDialog shown(call.keys.first(), token, this);
            shown.setObjectName(QStringLiteral("tokenShown"));
            shown.exec();
        }
    });
}

void MainWindow::onSnapshot(const Snapshot &snapshot)
{
    m_snapshot = snapshot;
    const QString onScreen = m_pageSections.value(m_stack->currentIndex());
    for (auto it = m_models.cbegin(); it != m_models.cend(); ++it) {
        if (it.key() == onScreen)
            it.value()->applySnapshot(snapshot);
        else
            m_staleModels.insert(it.key());
    }
    m_dirty = true;
}

void MainWindow::onTimer()
{
    // Countdowns and ages of the table on screen move with the server's clock.
    if (const QString section = m_pageSections.value(m_stack->currentIndex());
        m_snapshot.server.timeMs > 0 && !section.isEmpty())
        m_models.value(section)->advanceTo(QDateTime::currentMSecsSinceEpoch()
                                           + m_snapshot.server.clockOffsetMs);
    if (m_reconnectInMs >= 0) {
        const qint64 left = std::max<qint64>(0, m_reconnectInMs - m_reconnectClock.elapsed());
        m_stateLabel->setText(tr("Reconnecting… next attempt in %1").arg(formatMs(left)));
    }
    if (m_snapshot.server.timeMs > 0) {
        const qint64 age = QDateTime::currentMSecsSinceEpoch() + m_snapshot.server.clockOffsetMs
                           - m_snapshot.server.timeMs;
        m_ageLabel->setText(tr("reading %1 old").arg(formatMs(std::max<qint64>(0, age))));
        m_offsetLabel->setText(tr("clock offset %1 ms").arg(m_snapshot.server.clockOffsetMs));
        m_offsetLabel->setToolTip(tr("Server clock minus this machine's clock; window maths use "
                                     "the server's clock."));
        m_serverLabel->setText(
            m_snapshot.server.version.isEmpty()
                ? tr("Redis (version unknown)")
                : tr("Redis %1 %2").arg(m_snapshot.server.version, m_snapshot.server.role));
        m_eventsLabel->setText(m_snapshot.server.eventsLive ? tr("events live") : tr("polling"));
        m_eventsLabel->setToolTip(m_snapshot.server.notes.join(QLatin1Char('\n')));
    }
    if (!m_dirty)
        return;
    m_dirty = false;
    // Only what is on screen is redrawn.
    for (ChartPanel *chart : std::as_const(m_charts))
        chart->refresh(m_snapshot); // does nothing while hidden
    const int page = m_stack->currentIndex();
    if (page == 0)
        updateOverview();
    if (page == 4)
        updateStuckItems();
    if (page == 1)
        updateConsumers();
    if (m_items.contains(m_pageSections.value(page)))
        updateSectionItems(m_pageSections.value(page));
}

void MainWindow::updateOverview()
{
    QMap<QString, int> counts;
    struct Candidate
    {
        QString text;
        QString section;
        QByteArray key;
    };
    QList<QPair<double, Candidate>> items;
    for (const ObjectState &o : std::as_const(m_snapshot.objects)) {
        const QString section = patternSection(o.object.kind);
        ++counts[section];
        const Reading &r = o.reading;
        double score = 0;
        QString text;
        if (section == QLatin1String("limiter") && r.occupancy() && *r.occupancy() >= 0.8) {
            score = *r.occupancy();
            text = tr("Limiter %1 at %2 % (retry horizon %3)")
                       .arg(printableBytes(o.object.key))
                       .arg(formatPercent(score))
                       .arg(formatMs(r.countdownAt(r.retryHorizonMs, m_snapshot.server.timeMs)));
        } else if (section == QLatin1String("queue") && r.stuck > 0) {
            score = 2.0 + double(r.stuck);
            text = tr("Queue %1: %2 stuck, oldest in flight %3")
                       .arg(printableBytes(o.object.key))
                       .arg(r.stuck)
                       .arg(formatMs(r.ageAt(r.oldestInFlightAgeMs, m_snapshot.server.timeMs)));
        } else if (section == QLatin1String("lock") && !o.gone && o.reading.isOk()) {
            // Held since Gatehouse saw it taken, or at least since it first saw it.
            const bool known = o.heldSinceMs >= 0;
            const qint64 held = m_snapshot.server.timeMs - (known ? o.heldSinceMs : o.firstSeenMs);
            if (held > 1000) {
                score = 1.0 + double(held) / 1e9; // longest held first among locks
                text = tr("Lock %1 held for %2%3")
                           .arg(printableBytes(o.object.key),
                                known ? QString() : QStringLiteral("at least "), formatMs(held));
            }
        }
        if (text.isEmpty())
            continue;
        items.append({score, Candidate{text, section, o.object.key}});
    }
    // Only the items shown get a sparkline: a busy server has hundreds of
    // candidates, and each picture costs a history read and a pixmap.
    std::partial_sort(items.begin(), items.begin() + std::min<qsizetype>(50, items.size()),
                      items.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    m_hot->clear();
    for (qsizetype i = 0; i < std::min<qsizetype>(50, items.size()); ++i) {
        const Candidate &c = items.at(i).second;
        auto *item = new QListWidgetItem(c.text, m_hot);
        const QString figure = c.section == QLatin1String("limiter") ? QStringLiteral("inWindow")
                               : c.section == QLatin1String("queue") ? QStringLiteral("inFlight")
                                                                     : QStringLiteral("pttlMs");
        item->setData(SparklineRole, QVariant::fromValue(sparkline(c.key, figure)));
        item->setData(Qt::UserRole, c.section);
        item->setData(Qt::UserRole + 1, c.key);
    }
    if (!m_everReady) { // no zeros that look like readings
        m_overviewCounts->setText(tr("<h3>Not connected</h3><p>No reading yet.</p>"));
        return;
    }
    m_overviewCounts->setText(
        tr("<h3>%1</h3><p>%2 limiters · %3 locks · %4 token families · %5 queues%6</p>")
            .arg(m_snapshot.profile == QLatin1String("autodetected")
                     ? tr("Autodetected")
                     : tr("Profile %1").arg(m_snapshot.profile))
            .arg(counts.value(QStringLiteral("limiter")))
            .arg(counts.value(QStringLiteral("lock")))
            .arg(counts.value(QStringLiteral("token")))
            .arg(counts.value(QStringLiteral("queue")))
            .arg(m_snapshot.server.notes.isEmpty()
                     ? QString()
                     : QStringLiteral("</p><p><i>%1</i>")
                           .arg(escapedNotes(m_snapshot.server.notes))));
}

void MainWindow::updateStuckItems()
{
    const ObjectState *s = selected(QStringLiteral("queue"));
    const QByteArray current = [&] {
        const auto rows = m_stuck->selectionModel()->selectedRows();
        return rows.isEmpty()
                   ? QByteArray()
                   : m_stuck->item(rows.first().row(), 0)->data(Qt::UserRole).toByteArray();
    }();
    // As of the snapshot: ages projected when the queue was not re-read.
    const QList<InFlightItem> items
        = s ? s->reading.at(m_snapshot.server.timeMs).items : QList<InFlightItem>();
    m_stuck->setRowCount(int(items.size()));
    for (int i = 0; i < items.size(); ++i) {
        const InFlightItem &item = items.at(i);
        auto *job = new QTableWidgetItem(printableBytes(item.job, 200));
        job->setData(Qt::UserRole, item.job);
        const bool stuck = item.ageMs >= s->object.params.stuckAfterMs;
        if (stuck)
            job->setForeground(Qt::red);
        m_stuck->setItem(i, 0, job);
        m_stuck->setItem(i, 1, new QTableWidgetItem(formatMs(item.ageMs)));
        m_stuck->setItem(i, 2,
                         new QTableWidgetItem(item.source == AgeSource::ClaimsSet
                                                  ? tr("claim time")
                                                  : tr("first seen by Gatehouse")));
        if (item.job == current)
            m_stuck->selectRow(i);
    }
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
    // Connection: red, until the connection is back or another is made.
    // Action: amber, until dismissed or the next action's outcome.
    m_banner->setStyleSheet(
        kind == BannerKind::Connection
            ? QStringLiteral("#faultBanner { background: #fdecea; "
                             "border: 1px solid #d93025; border-radius: 4px; }")
            : QStringLiteral("#faultBanner { background: #fef7e0; "
                             "border: 1px solid #f9ab00; border-radius: 4px; }"));
    m_bannerConnect->setVisible(kind == BannerKind::Connection);
    m_bannerDismiss->setVisible(kind == BannerKind::Action);
    m_bannerText->setText(
        QStringLiteral("<b>%1</b><br>%2<br><i>%3</i>")
            .arg(title.toHtmlEscaped(), message.toHtmlEscaped(), advice.toHtmlEscaped()));
    m_banner->show();
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

void MainWindow::showState(RedisConnection::State state, const QString &message)
{
    QString text;
    switch (state) {
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
    if (state == RedisConnection::State::Failed && auth) {
        text = tr("Authentication failed");
        const QString title = tr("Not connected: the server refused the credentials.");
        showBanner(BannerKind::Connection, title, message,
                   tr("Check the user name and password in File › Connect… (or --user/--pass, "
                      "REDISCLI_AUTH); for an ACL user, check that it is enabled and may "
                      "AUTH. Nothing below is a reading until the connection is "
                      "authenticated."));
    } else if (state == RedisConnection::State::Failed && tls) {
        text = tr("TLS failed");
        showBanner(BannerKind::Connection,
                   tr("Not connected: the TLS connection could not be set up."), message,
                   tr("Check that the port speaks TLS, the CA that signed the server's "
                      "certificate (--cacert), the name the certificate is for (--sni), and "
                      "the client certificate and key if the server asks for one (--cert, "
                      "--key), in File › Connect…."));
    } else if ((state == RedisConnection::State::Ready
                || state == RedisConnection::State::Connecting)
               && m_bannerKind == BannerKind::Connection) {
        showBanner(BannerKind::None, {}, {}, {});
    }
    if (state == RedisConnection::State::Ready && !m_everReady) {
        m_everReady = true;
        m_dirty = true; // the overview shows figures from now on
    }
    m_stateLabel->setText(text);
    m_stateLabel->setToolTip(message);
    m_reconnectInMs = -1;
    if (state == RedisConnection::State::Reconnecting) {
        static const QRegularExpression s_delay(QStringLiteral("Next attempt in (\\d+) ms"));
        const auto m = s_delay.match(message);
        if (m.hasMatch()) {
            m_reconnectInMs = m.captured(1).toLongLong();
            m_reconnectClock.start();
        }
    }
    // Only the current state: a reconnect clears the last attempt's sentence
    // (and only that: an action's outcome shown since stays).
    if (message.isEmpty() || state == RedisConnection::State::Ready) {
        if (!m_stateMessage.isEmpty() && statusBar()->currentMessage() == m_stateMessage)
            statusBar()->clearMessage();
        m_stateMessage.clear();
    } else {
        statusBar()->showMessage(message, 15000);
        m_stateMessage = message;
    }
}

} // namespace gatehouse
