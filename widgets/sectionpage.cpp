// SPDX-License-Identifier: MIT
#include "sectionpage.h"

#include "actioninputdialog.h"
#include "chartpanel.h"
#include "objecttablemodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace gatehouse {

SectionPage::SectionPage(const Section &section, bool readOnly, QWidget *parent)
    : QWidget(parent)
    , m_section(section)
    , m_model(new ObjectTableModel(section.id, this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
{
    setObjectName(section.id + QStringLiteral("Page"));
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_filter->setObjectName(section.id + QStringLiteral("Filter"));
    m_filter->setPlaceholderText(tr("Filter by key"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
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
            auto *button = new QPushButton(action.label, this);
            button->setObjectName(action.objectName);
            if (readOnly) {
                button->setEnabled(false);
                button->setToolTip(
                    tr("Read-only mode: actions are disabled (started with --read-only)."));
            }
            bar->addWidget(button);
            connect(button, &QPushButton::clicked, this, [this, id = action.id] { actOn(id); });
        }
    }
    layout->addLayout(bar);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableView(splitter);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ObjectTableModel::SortRole);
    m_proxy->setFilterKeyColumn(0);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_table->setColumnWidth(0, 280);
    m_table->verticalHeader()->hide();
    splitter->addWidget(m_table);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    // The parts of the selected object (a resource's consumers): objects
    // whose parent it is.
    m_parts = new QListWidget(splitter);
    m_parts->setObjectName(section.id + QStringLiteral("Parts"));
    m_parts->setMaximumHeight(110);
    m_parts->hide();
    splitter->addWidget(m_parts);
    if (!itemHeaders.isEmpty()) {
        m_items = new QTableWidget(0, int(itemHeaders.size()), splitter);
        m_items->setObjectName(section.id + QStringLiteral("Items"));
        m_items->setHorizontalHeaderLabels(itemHeaders);
        m_items->horizontalHeader()->setStretchLastSection(true);
        m_items->setColumnWidth(0, 360);
        m_items->setSelectionBehavior(QAbstractItemView::SelectRows);
        m_items->setSelectionMode(QAbstractItemView::SingleSelection);
        m_items->setEditTriggers(QAbstractItemView::NoEditTriggers);
        m_items->verticalHeader()->hide();
        splitter->addWidget(m_items);
    }
    m_chart = new ChartPanel(section.id, splitter);
    splitter->addWidget(m_chart);
    layout->addWidget(splitter, 1);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const ObjectState *s = selected();
        m_chart->setObject(s);
        updateItems();
        updateParts();
        Q_EMIT selectionChanged(s ? s->object.key : QByteArray());
    });
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
    if (isVisible())
        sync();
}

void SectionPage::showEvent(QShowEvent *event)
{
    sync();
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
    const int row = m_model->rowOf(key);
    if (row < 0)
        return false;
    m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
    return true;
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
    updateItems();
    updateParts();
}

void SectionPage::updateItems()
{
    if (!m_items)
        return;
    const ObjectState *s = selected();
    const auto chosen = m_items->selectionModel()->selectedRows();
    const int current = chosen.isEmpty() ? -1 : chosen.first().row();
    const qint64 now = m_snapshot ? m_snapshot->server.timeMs : 0;
    const QList<QStringList> rows
        = s ? PatternUnit::of(s->object.kind).items(*s, now) : QList<QStringList>();
    m_items->setRowCount(int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        for (int c = 0; c < rows.at(r).size() && c < m_items->columnCount(); ++c)
            m_items->setItem(r, c, new QTableWidgetItem(rows.at(r).at(c)));
    }
    if (current >= 0 && current < rows.size())
        m_items->selectRow(current);
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
        if (!o.object.parent.isEmpty() && o.object.parent == s->object.key)
            parts.append(&o);
    }
    std::sort(parts.begin(), parts.end(), [](const ObjectState *a, const ObjectState *b) {
        return a->object.key < b->object.key;
    });
    for (const ObjectState *part : std::as_const(parts)) {
        const ObjectState &o = *part;
        // The part's own figures, as its row would show them.
        QStringList cells;
        for (int c = 1; c < columns.count(); ++c) {
            const Column *column = columns.column(c, o.object.kind);
            if (!column || column->header == QLatin1String("Pattern"))
                continue;
            const QString text = column->text(o, now);
            if (!text.isEmpty())
                cells << QStringLiteral("%1 %2").arg(column->header, text);
        }
        m_parts->addItem(
            QStringLiteral("%1: %2").arg(printableBytes(o.object.key.mid(s->object.key.size())),
                                         cells.join(QLatin1String(" · "))));
    }
    m_parts->setVisible(m_parts->count() > 0);
}

void SectionPage::actOn(const QString &actionId)
{
    const ObjectState *s = selected();
    // The pattern whose action it is: the selected object's, or for an
    // action on a prefix (token issue) the first of the section offering it.
    const PatternUnit *unit = s ? &PatternUnit::of(s->object.kind) : nullptr;
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
    int item = -1;
    if (m_items && s) {
        const auto rows = m_items->selectionModel()->selectedRows();
        item = rows.isEmpty() ? -1 : rows.first().row();
    }
    // The objects of the same pattern the console knows (token revoke checks
    // the key is in one of its families).
    QList<QByteArray> known;
    if (m_snapshot) {
        for (const ObjectState &o : m_snapshot->objects) {
            if (o.object.kind == unit->kind())
                known << o.object.key;
        }
    }
    std::optional<ObjectState> shown; // the state as the operator saw it
    if (s)
        shown = *s;
    QString problem;
    const std::optional<ActionRequest> request = ActionInputDialog::ask(
        *unit, *action, shown ? &*shown : nullptr, item, known, this, &problem);
    if (!request) {
        Q_EMIT message(problem.isEmpty() ? tr("Cancelled: nothing was sent.") : problem);
        return;
    }
    const ScriptCall call = action->build(*request);
    if (!call.isValid()) {
        Q_EMIT message(call.refusal);
        return;
    }
    Q_EMIT actionRequested(call);
}

bool SectionPage::exportCsv(const QString &fileName) const
{
    sync();
    auto quote = [](QString cell) {
        if (cell.contains(QLatin1Char(',')) || cell.contains(QLatin1Char('"'))
            || cell.contains(QLatin1Char('\n')))
            cell = QLatin1Char('"') + cell.replace(QLatin1Char('"'), QLatin1String("\"\""))
                   + QLatin1Char('"');
        return cell;
    };
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    QStringList header;
    for (int c = 0; c < m_proxy->columnCount(); ++c)
        header << quote(m_proxy->headerData(c, Qt::Horizontal).toString());
    file.write(header.join(QLatin1Char(',')).toUtf8() + '\n');
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m_proxy->columnCount(); ++c)
            cells << quote(m_proxy->index(r, c).data().toString());
        file.write(cells.join(QLatin1Char(',')).toUtf8() + '\n');
    }
    return file.commit();
}

} // namespace gatehouse
