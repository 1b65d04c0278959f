// SPDX-License-Identifier: MIT
#include "sectionpage.h"

#include "actioninputdialog.h"
#include "actionrightsgate.h"
#include "chartpanel.h"
#include "csvwriter.h"
#include "evidencetext.h"
#include "familyproxymodel.h"
#include "flowlayout.h"
#include "itemrows.h"
#include "objectpanel.h"
#include "objecttablemodel.h"
#include "objecttableview.h"
#include "panesizer.h"
#include "queuejobspanel.h"
#include "splitterstate.h"
#include "theme.h"

#include <monitor/jobbrowser.h>
#include <patterns/article.h>
#include <patterns/objecthealth.h>

#include <QDateTime>
#include <QGraphicsOpacityEffect>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace gatehouse {

// The server as a snapshot names it (its commands: ServerIdentity::has).
ServerIdentity SectionPage::server() const
{
    ServerIdentity server;
    const Snapshot *snapshot = m_snapshot.get();
    if (snapshot && !snapshot->server.nodes.isEmpty()) {
        server.name = snapshot->server.nodes.first().serverName;
        server.version = snapshot->server.nodes.first().version;
    }
    return server;
}

SectionPage::SectionPage(const Section &section, bool readOnly, QWidget *parent)
    : QWidget(parent)
    , m_section(section)
    , m_model(new ObjectTableModel(section.id, this))
    , m_proxy(new FamilyProxyModel(m_model, this))
    , m_filter(new QLineEdit(this))
    , m_readOnly(readOnly)
    , m_splitter(new QSplitter(Qt::Vertical, this))
{
    setObjectName(section.id + QStringLiteral("Page"));
    auto *layout = new QVBoxLayout(this);
    // The filter, then the actions: wrapped onto more lines at a narrow
    // window, never clipped.
    auto *bar = new FlowLayout;
    m_filter->setObjectName(section.id + QStringLiteral("Filter"));
    m_filter->setPlaceholderText(tr("Filter by key"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setFixedWidth(m_filter->fontMetrics().averageCharWidth() * 32);
    bar->addWidget(m_filter);
    addActionButtons(bar);
    m_actionsHint = new QLabel(tr("Select a row to see what can be done to it."), this);
    m_actionsHint->setObjectName(section.id + QStringLiteral("ActionsHint"));
    m_actionsHint->setForegroundRole(QPalette::PlaceholderText);
    m_actionsHint->setWordWrap(true); // a family's hint is long: never wider than the page
    m_actionsHint->setMinimumHeight(m_filter->sizeHint().height());
    bar->addWidget(m_actionsHint);
    layout->addLayout(bar);
    buildTable();
    buildPanes();
    layout->addWidget(m_splitter, 1);
    // Why autodetection shows the selected object (its evidence in words).
    m_why = new QLabel(this);
    m_why->setObjectName(section.id + QStringLiteral("Why"));
    m_why->setWordWrap(true);
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_why->hide();
    layout->addWidget(m_why);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SectionPage::onSelectionChanged);
    // A table fitted to a few rows grows with them (up to 40 % of the page),
    // and with the horizontal scroll bar when it appears (it covers a row).
    const auto refit = [this] {
        if (m_sizer->tableFitted())
            m_sizer->fitTable(m_proxy->rowCount(), true);
    };
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, refit);
    connect(m_table->horizontalScrollBar(), &QScrollBar::rangeChanged, this, refit,
            Qt::QueuedConnection); // once the view's geometry has settled
    updateActions(nullptr);
}

void SectionPage::buildTable()
{
    auto *table = new ObjectTableView(m_splitter);
    m_table = table;
    m_sizer = std::make_unique<PaneSizer>(m_splitter, m_table);
    m_table->setModel(m_proxy);
    m_table->viewport()->installEventFilter(this);
    m_table->installEventFilter(this);
    table->configure(m_model);
    m_splitter->addWidget(m_table);
    // Filtering never moves the selection to another object (an action
    // would then target one the operator never picked): the selected object
    // (or family) stays selected while it matches, and nothing is selected
    // once it does not.
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        const QPersistentModelIndex was(rows.isEmpty() ? QModelIndex()
                                                       : m_proxy->mapToSource(rows.first()));
        m_proxy->setFilterText(text);
        QItemSelectionModel *selection = m_table->selectionModel();
        const QModelIndex shown = was.isValid() ? m_proxy->mapFromSource(was) : QModelIndex();
        if (shown.isValid()) {
            selection->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect
                                                  | QItemSelectionModel::Rows);
        } else {
            selection->clearSelection();
            selection->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
        }
    });
    // Enter (or a double click) on a family row lists or folds its members.
    connect(m_table, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        if (m_model->isFamilyRow(m_proxy->mapToSource(index).row()))
            toggleFamily(index);
    });
}

// Below the table: the selected object's parts, its items, its jobs, then
// its charts (panels come later, above the charts: addPanel).
void SectionPage::buildPanes()
{
    QStringList itemHeaders;
    bool listsJobs = false;
    for (const PatternUnit *unit : PatternRegistry::instance().unitsIn(m_section.id)) {
        if (itemHeaders.isEmpty())
            itemHeaders = unit->itemHeaders();
        listsJobs = listsJobs || !unit->jobStates().isEmpty();
    }
    // The parts of the selected object (a resource's consumers): objects
    // whose parent it is.
    m_parts = new QListWidget(m_splitter);
    m_parts->setObjectName(m_section.id + QStringLiteral("Parts"));
    m_parts->setMaximumHeight(110);
    m_parts->hide();
    m_splitter->addWidget(m_parts);
    if (!itemHeaders.isEmpty())
        buildItems(itemHeaders);
    if (listsJobs) {
        m_jobsPanel = new QueueJobsPanel(m_section.id, m_splitter);
        m_splitter->addWidget(m_jobsPanel);
        connect(m_jobsPanel, &QueueJobsPanel::jobsChosen, this, [this] { m_jobChosenLast = true; });
        connect(m_jobsPanel, &QueueJobsPanel::verbRequested, this,
                [this](const QString &id, const QHash<QString, QByteArray> &inputs) {
                    m_jobChosenLast = true; // the verb's jobs are the list's
                    actOn(id, inputs);
                });
    }
    m_chart = new ChartPanel(m_section.id, m_splitter);
    m_splitter->addWidget(m_chart);
    m_splitter->setChildrenCollapsible(false); // a dragged handle never hides a pane
    persistSplitter(m_splitter, m_section.id + QStringLiteral("PageSplitter"));
}

void SectionPage::buildItems(const QStringList &headers)
{
    m_items = new QTableWidget(0, int(headers.size()), m_splitter);
    m_items->setObjectName(m_section.id + QStringLiteral("Items"));
    m_items->setHorizontalHeaderLabels(headers);
    // Headers and cells whole (no "Hold count / plac"), long ones elided
    // with their tooltip.
    m_items->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_items->horizontalHeader()->setMaximumSectionSize(
        std::max(200, fontMetrics().averageCharWidth() * 48));
    m_items->setWordWrap(false);
    m_items->horizontalHeader()->setStretchLastSection(true);
    m_items->setColumnWidth(0, 360);
    m_items->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_items->setSelectionMode(QAbstractItemView::SingleSelection);
    m_items->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_items->verticalHeader()->hide();
    // One line per row, as the object table above (30 px rows read as
    // wrapped ones).
    m_items->verticalHeader()->setDefaultSectionSize(m_items->fontMetrics().height() + 8);
    m_items->hide(); // until an object with items is selected (updateItems)
    m_splitter->addWidget(m_items);
    connect(m_items, &QTableWidget::itemSelectionChanged, this,
            [this] { m_jobChosenLast = false; });
}

void SectionPage::onSelectionChanged()
{
    const ObjectState *s = selected();
    // Regrouping keeps the selected row (ObjectTableModel).
    m_model->setSelectedRow(selectedRow());
    updateWhy(s);
    const bool chartsWereHidden = m_chart->maximumHeight() < QWIDGETSIZE_MAX;
    m_chart->setObject(s);
    // The charts appear: give them 60 % of the page (35 % under a job
    // browser, which keeps the larger share), from the panes that have the
    // most (the splitter kept the hint's few pixels for them).
    if (s && chartsWereHidden && !m_splitter->property("sizesChosen").toBool())
        m_sizer->giveShare(
            m_chart,
            m_jobsPanel && !PatternUnit::of(s->object->kind).jobStates().isEmpty() ? 35 : 60);
    updateItems();
    updateParts();
    if (m_jobsPanel)
        m_jobsPanel->setObject(s, m_snapshot ? m_snapshot->server.timeMs : 0);
    for (ObjectPanel *panel : std::as_const(m_panels)) {
        panel->setObject(s);
        // A pane that appears (a family's tokens, a lock's holders) gets
        // a third of the page, at most what it can use.
        if (!panel->isHidden() && m_splitter->sizes().value(m_splitter->indexOf(panel)) < 120)
            m_sizer->giveRoom(panel, std::min(m_splitter->height() / 3, panel->maximumHeight()));
    }
    m_sizer->fitTable(m_proxy->rowCount(), false);
    updateActions(s);
    Q_EMIT selectionChanged(s ? s->object->key : QByteArray());
}

SectionPage::~SectionPage() = default;

ObjectTableModel *SectionPage::model() const
{
    sync();
    return m_model;
}

void SectionPage::sync() const
{
    if (m_modelStale && m_snapshot) {
        m_modelStale = false;
        m_model->applySnapshot(*m_snapshot);
    }
}

void SectionPage::setSnapshot(const std::shared_ptr<const Snapshot> &snapshot)
{
    m_snapshot = snapshot;
    m_modelStale = true;
    for (ObjectPanel *panel : std::as_const(m_panels))
        panel->setSnapshot(snapshot);
    if (isVisible()) {
        sync();
        // The selected object's new state decides its actions: a lock that
        // vanished (or a legacy one that expired) under the selection no
        // longer offers Force release as if it were there. A few buttons,
        // not a walk of the objects.
        if (m_table->selectionModel()->hasSelection())
            updateActions(selected());
    } else {
        m_model->releasePlaces(); // until it is shown, it holds only its rows
    }
}

void SectionPage::showEvent(QShowEvent *event)
{
    sync();
    if (m_table->selectionModel()->hasSelection())
        updateActions(selected());
    QWidget::showEvent(event);
}

const ObjectState *SectionPage::selected() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return nullptr;
    return m_model->stateAt(m_proxy->mapToSource(rows.first()).row());
}

void SectionPage::selectRow(int row)
{
    sync();
    if (row >= 0 && row < m_proxy->rowCount())
        m_table->selectRow(row);
}

bool SectionPage::selectKey(const QByteArray &key)
{
    sync();
    const int row = m_model->reveal(key); // a collapsed family lists it
    if (row < 0)
        return false;
    const QModelIndex shown = m_proxy->mapFromSource(m_model->index(row, 0));
    if (!shown.isValid())
        return false; // the filter hides it
    m_table->selectRow(shown.row());
    m_table->scrollTo(shown);
    return true;
}

int SectionPage::selectedRow() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : m_proxy->mapToSource(rows.first()).row();
}

bool SectionPage::familySelected() const
{
    return m_model->isFamilyRow(selectedRow());
}

void SectionPage::toggleFamily(const QModelIndex &index)
{
    const int row = m_proxy->mapToSource(index).row();
    if (!m_model->isFamilyRow(row))
        return;
    const QPersistentModelIndex familyRow = m_model->index(row, 0);
    const bool expand = !m_model->isExpanded(row);
    // Collapsing takes away the selected member's row: the selection goes to
    // the family's (the operator folded it), never elsewhere.
    const ObjectState *s = selected();
    const bool memberSelected = !expand && s && m_model->familyRowOfKey(s->object->key) == row;
    m_model->setExpanded(row, expand);
    if (memberSelected && familyRow.isValid()) {
        const QModelIndex shown = m_proxy->mapFromSource(familyRow);
        if (shown.isValid())
            m_table->selectRow(shown.row());
    }
    // The family row's hint and the buttons' reasons say what to do now.
    updateWhy(selected());
    updateActions(selected());
}

bool SectionPage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::MouseButtonRelease) {
        // The arrow: the first characters of a family row's key cell.
        const auto *mouse = static_cast<QMouseEvent *>(event);
        const QModelIndex index = m_table->indexAt(mouse->position().toPoint());
        if (mouse->button() == Qt::LeftButton && index.isValid() && index.column() == 0
            && m_model->isFamilyRow(m_proxy->mapToSource(index).row())) {
            const QRect cell = m_table->visualRect(index);
            const int arrow = m_table->fontMetrics().horizontalAdvance(QStringLiteral("▸ ")) + 8;
            if (mouse->position().x() - cell.left() <= arrow)
                toggleFamily(index);
        }
    } else if (watched == m_table && event->type() == QEvent::KeyPress) {
        // Right opens a family row, Left folds it (as in a tree).
        const auto *key = static_cast<QKeyEvent *>(event);
        const QModelIndex current = m_table->currentIndex();
        const int row = current.isValid() ? m_proxy->mapToSource(current).row() : -1;
        if (m_model->isFamilyRow(row)
            && ((key->key() == Qt::Key_Right && !m_model->isExpanded(row))
                || (key->key() == Qt::Key_Left && m_model->isExpanded(row)))) {
            toggleFamily(current);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

QString SectionPage::familyHint() const
{
    const int row = selectedRow();
    if (!m_model->isFamilyRow(row))
        return {};
    return tr("%1: a family of one pattern. %2; select one of them for its charts and "
              "actions.")
        .arg(m_model->familyTitle(row), m_model->isExpanded(row)
                                            ? tr("The worst are listed under it")
                                            : tr("Expand it (Enter, or a click on its arrow)"));
}

QString SectionPage::whyText() const
{
    return m_why->text();
}

void SectionPage::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void SectionPage::refresh(qint64 serverNowMs, bool changed)
{
    if (!m_snapshot)
        return;
    if (m_snapshot->server.timeMs > 0)
        m_model->advanceTo(serverNowMs);
    if (!changed)
        return;
    m_chart->refresh(*m_snapshot); // does nothing while hidden
    updateWhy(selected());
    updateItems();
    updateParts();
    if (m_jobsPanel) {
        // Offline or stale: job ages as of the object's last reading.
        const ObjectState *s = selected();
        const bool asRead = s && (s->stale || !m_offline.isEmpty());
        m_jobsPanel->setObject(s, asRead ? s->reading.atMs : m_snapshot->server.timeMs);
    }
    for (ObjectPanel *panel : std::as_const(m_panels))
        panel->setObject(selected());
}

void SectionPage::updateWhy(const ObjectState *s)
{
    // A family row: what it is and how to reach its members (its charts are
    // its members': "select one of them").
    const QString why = s ? evidenceWhy(s->object->evidence) : familyHint();
    m_why->setText(why);
    m_why->setVisible(!why.isEmpty());
}

void SectionPage::updateItems()
{
    if (!m_items)
        return;
    const ObjectState *s = selected();
    const auto chosen = m_items->selectionModel()->selectedRows();
    const int current = chosen.isEmpty() ? -1 : chosen.first().row();
    // Offline, or the object stale: its items as last read, their times at
    // that reading (never moved on by the clock), greyed and said so.
    const bool asRead = s && (s->stale || !m_offline.isEmpty());
    const qint64 now = asRead ? s->reading.atMs : m_snapshot ? m_snapshot->server.timeMs : 0;
    const QString asReadWhy
        = asRead ? tr("As last read at %1: no reading since, so its times (ages, TTLs, time "
                      "left) are not current.")
                       .arg(QDateTime::fromMSecsSinceEpoch(s->reading.atMs)
                                .toLocalTime()
                                .toString(QStringLiteral("HH:mm:ss")))
                 : QString();
    m_items->setToolTip(asReadWhy);
    m_items->setProperty("asReadAtMs", asRead ? s->reading.atMs : qint64(-1));
    const QList<QStringList> rows
        = s ? PatternUnit::of(s->object->kind).items(*s, now) : QList<QStringList>();
    // The headers of the selected object's pattern (a BullMQ queue's active
    // jobs have a name, attempts and a lock; a reliable queue's items an
    // age source).
    if (s) {
        const QStringList headers = PatternUnit::of(s->object->kind).itemHeaders();
        if (!headers.isEmpty() && headers.size() != m_items->columnCount()) {
            m_items->setColumnCount(int(headers.size()));
            m_items->setHorizontalHeaderLabels(headers);
        } else if (!headers.isEmpty()) {
            for (int c = 0; c < headers.size(); ++c) {
                if (!m_items->horizontalHeaderItem(c)
                    || m_items->horizontalHeaderItem(c)->text() != headers.at(c))
                    m_items->setHorizontalHeaderItem(c, new QTableWidgetItem(headers.at(c)));
            }
        }
    }
    fillItemRows(
        m_items, rows,
        [&](int r) { return PatternUnit::of(s->object->kind).itemUrgent(*s, r, now); }, asReadWhy);
    // The item chosen stays chosen while the same object is shown; another
    // object (switching queues) starts with nothing chosen, so an action
    // never targets a job the operator did not pick.
    const QByteArray key = s ? s->object->key : QByteArray();
    const bool sameObject = m_items->property("shownKey").toByteArray() == key;
    m_items->setProperty("shownKey", key);
    // Shown for an object with items to list (a Redisson lock's holders, a
    // queue's jobs in flight): a plain lock has none, and an empty table
    // would take a pane of the page. Once shown it stays while the same
    // object is selected, so a queue emptying and filling does not move the
    // panes under the operator.
    const bool listsItems = s && !PatternUnit::of(s->object->kind).itemHeaders().isEmpty()
                            && (!rows.isEmpty() || (sameObject && m_items->isVisibleTo(this)));
    const bool appears = listsItems && !m_items->isVisibleTo(this);
    m_items->setVisible(listsItems);
    if (appears) {
        // As high as its rows (2 to 8, then it scrolls), at most a third of the page.
        const int shown = std::clamp(int(rows.size()), 2, 8);
        m_sizer->giveRoom(
            m_items, std::min(m_splitter->height() / 3, PaneSizer::rowsHeight(m_items, shown)));
    }
    if (sameObject && current >= 0 && current < rows.size()) {
        m_items->selectRow(current);
    } else {
        m_items->clearSelection();
        m_items->setCurrentCell(-1, -1);
    }
}

void SectionPage::updateParts()
{
    m_parts->clear();
    const ObjectState *s = selected();
    if (!s || !m_snapshot) {
        m_parts->hide();
        return;
    }
    const SectionColumns columns(m_section.id);
    const qint64 now = m_snapshot->server.timeMs;
    QList<const ObjectState *> parts;
    for (const ObjectState &o : m_snapshot->objects) {
        if (!o.object->parent.isEmpty() && o.object->parent == s->object->key)
            parts.append(&o);
    }
    std::sort(parts.begin(), parts.end(), [](const ObjectState *a, const ObjectState *b) {
        return a->object->key < b->object->key;
    });
    for (const ObjectState *part : std::as_const(parts)) {
        const ObjectState &o = *part;
        // The part's own figures, as its row would show them.
        QStringList cells;
        for (int c = 1; c < columns.count(); ++c) {
            const Column *column = columns.column(c, o.object->kind);
            if (!column || column->header == QLatin1String("Pattern"))
                continue;
            const QString text = column->text(o, now);
            if (!text.isEmpty())
                cells << QStringLiteral("%1 %2").arg(column->header, text);
        }
        m_parts->addItem(
            QStringLiteral("%1: %2").arg(printableBytes(o.object->key.mid(s->object->key.size())),
                                         cells.join(QLatin1String(" · "))));
    }
    m_parts->setVisible(m_parts->count() > 0);
}

// The buttons of the selected object's pattern only (a Sidekiq deployment
// has no Promote); with nothing selected, every action of the section.
// An action is enabled only for a target it can act on, and a disabled one
// says why: read-only, not connected, or nothing selected.
void SectionPage::setOffline(const QString &why)
{
    if (why == m_offline)
        return;
    m_offline = why;
    // The figures are the last ones read: greyed, so they are not taken
    // for live ones.
    if (why.isEmpty()) {
        m_table->setGraphicsEffect(nullptr);
    } else if (!m_table->graphicsEffect()) {
        auto *grey = new QGraphicsOpacityEffect(m_table);
        grey->setOpacity(0.45);
        m_table->setGraphicsEffect(grey);
    }
    m_table->setToolTip(why);
    // Times that cannot be known offline are shown as unknown, not projected.
    m_proxy->setTimesUnknown(!why.isEmpty());
    for (ObjectPanel *panel : std::as_const(m_panels))
        panel->setOffline(why);
    updateItems();
    updateActions(selected());
}

void SectionPage::addPanel(ObjectPanel *panel)
{
    m_splitter->insertWidget(m_splitter->indexOf(m_chart), panel);
    m_panels.append(panel);
    connect(panel, &ObjectPanel::actionsRequested, this, &SectionPage::actionsRequested);
    connect(panel, &ObjectPanel::message, this, &SectionPage::message);
    panel->setSnapshot(m_snapshot);
    panel->setOffline(m_offline);
    panel->setObject(selected());
}

void SectionPage::actOn(const QString &actionId, const QHash<QString, QByteArray> &fixed)
{
    const ObjectState *s = selected();
    // The pattern whose action it is: the selected object's, or for an
    // action on a prefix (token issue) the first of the section offering it.
    const PatternUnit *unit = s ? &PatternUnit::of(s->object->kind) : nullptr;
    std::optional<PatternAction> action;
    auto find = [&](const PatternUnit *u) {
        for (const PatternAction &a : u->actions()) {
            if (a.id == actionId)
                return std::optional<PatternAction>(a);
        }
        return std::optional<PatternAction>();
    };
    if (unit) {
        action = find(unit);
        if (!action) {
            Q_EMIT message(tr("A %1 does not offer this action.").arg(unit->title()));
            return;
        }
    } else {
        for (const PatternUnit *u : PatternRegistry::instance().unitsIn(m_section.id)) {
            action = find(u);
            if (action) {
                unit = u;
                break;
            }
        }
        if (!action || !action->targetIsPrefix) {
            Q_EMIT message(tr("Select one in the table first."));
            return;
        }
    }
    // The item chosen: a job in the jobs panel (the last list clicked), or
    // an item of the object's reading.
    QHash<QString, QByteArray> chosen = fixed;
    if (s && m_jobChosenLast && !chosenJob().isEmpty()) {
        chosen.insert(QStringLiteral("job"), chosenJob());
    } else if (m_items && s) {
        const auto rows = m_items->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            chosen.insert(unit->itemInputs(*s, rows.first().row()));
    }
    // The objects of the same pattern the console knows (token revoke checks
    // the key is in one of its families).
    QList<QByteArray> known;
    if (m_snapshot) {
        for (const ObjectState &o : m_snapshot->objects) {
            if (o.object->kind == unit->kind())
                known << o.object->key;
        }
    }
    std::optional<ObjectState> shown; // the state as the operator saw it
    if (s)
        shown = *s;
    QString problem;
    // What was typed for this action on this object the last time (the form
    // or its confirmation cancelled, or the same action again): the form
    // starts with it. Kept for the window's life, at most TypedKept entries.
    const QByteArray typedKey = action->id.toUtf8() + '\n' + (s ? s->object->key : QByteArray());
    QHash<QString, QByteArray> typed = m_typed.value(typedKey);
    std::optional<ActionRequest> request = ActionInputDialog::ask(
        *unit, *action, shown ? &*shown : nullptr, chosen, known, this, &problem, &typed);
    if (!typed.isEmpty()) {
        if (m_typed.size() >= TypedKept && !m_typed.contains(typedKey))
            m_typed.clear();
        m_typed.insert(typedKey, typed);
    }
    if (!request) {
        Q_EMIT message(problem.isEmpty() ? tr("Cancelled: nothing was sent.") : problem);
        return;
    }
    request->server = server(); // as the last snapshot named it
    // Several jobs chosen for an action on a job: the same request for each.
    // Every call is built and checked before anything is sent; one that
    // cannot be built stops them all.
    const bool takesJob
        = std::any_of(action->inputs.cbegin(), action->inputs.cend(), [](const ActionInput &in) {
              return in.id == QLatin1String("job") && in.source == ActionInput::Source::Item;
          });
    const QString title
        = action->label.endsWith(QStringLiteral("…")) ? action->label.chopped(1) : action->label;
    const QList<QByteArray> jobs = chosenJobs();
    if (s && m_jobChosenLast && takesJob && jobs.size() > 1) {
        QList<ScriptCall> calls;
        for (const QByteArray &job : jobs) {
            ActionRequest each = *request;
            each.inputs.insert(QStringLiteral("job"), job);
            const QString why = action->check ? action->check(each) : QString();
            const ScriptCall call = why.isEmpty() ? action->build(each) : ScriptCall();
            if (!why.isEmpty() || !call.isValid()) {
                Q_EMIT message(
                    tr("Job %1: %2 Nothing was sent.")
                        .arg(printableBytes(job, 80), why.isEmpty() ? call.refusal : why));
                return;
            }
            calls.append(call);
            calls.last().title = title;
        }
        Q_EMIT actionsRequested(calls);
        return;
    }
    ScriptCall call = action->build(*request);
    if (!call.isValid()) {
        Q_EMIT message(call.refusal);
        return;
    }
    call.title = title;
    Q_EMIT actionRequested(call);
}

bool SectionPage::exportCsv(const QString &fileName) const
{
    sync();
    return writeCsv(m_proxy, fileName);
}

void SectionPage::setJobBrowser(JobBrowser *browser)
{
    if (m_jobsPanel)
        m_jobsPanel->setJobBrowser(browser);
}

void SectionPage::reloadJobs()
{
    if (m_jobsPanel)
        m_jobsPanel->reload();
    for (ObjectPanel *panel : std::as_const(m_panels))
        panel->reload();
}

QByteArray SectionPage::chosenJob() const
{
    return m_jobsPanel ? m_jobsPanel->chosenJob() : QByteArray();
}

QList<QByteArray> SectionPage::chosenJobs() const
{
    return m_jobsPanel ? m_jobsPanel->chosenJobs() : QList<QByteArray>();
}

void SectionPage::setRightsGate(ActionRightsGate *gate)
{
    m_rights = gate;
    if (gate)
        connect(gate, &ActionRightsGate::changed, this, [this] { updateActions(selected()); });
}

} // namespace gatehouse
