// SPDX-License-Identifier: MIT
#include "panesizer.h"

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>

#include <algorithm>
#include <numeric>

namespace gatehouse {

namespace {

int sum(const QList<int> &sizes)
{
    return std::accumulate(sizes.cbegin(), sizes.cend(), 0);
}

} // namespace

PaneSizer::PaneSizer(QSplitter *splitter, QTableView *table)
    : m_splitter(splitter)
    , m_table(table)
{}

int PaneSizer::rowsHeight(const QTableView *table, int rows)
{
    // The scroll bar takes a row's room once the columns are wider than the
    // view, shown yet or not (it appears after the columns are sized).
    const QScrollBar *bar = table->horizontalScrollBar();
    const bool scrolls
        = bar->isVisible() || table->horizontalHeader()->length() > table->viewport()->width();
    const int scrollBar = scrolls ? bar->sizeHint().height() : 0;
    return table->horizontalHeader()->sizeHint().height()
           + rows * table->verticalHeader()->defaultSectionSize() + 2 * table->frameWidth()
           + scrollBar;
}

int PaneSizer::floorOf(int i, int total) const
{
    if (m_splitter->widget(i) != m_table)
        return PaneFloor;
    const int rows = m_table->model() ? std::min(m_table->model()->rowCount(), KeepRows) : 0;
    const int keep = rowsHeight(m_table, std::max(rows, MinTableRows))
                     + m_table->verticalHeader()->defaultSectionSize() / 2;
    return std::max(PaneFloor, std::min(keep, total * KeepSharePercent / 100));
}

void PaneSizer::keepTableFloor()
{
    // The splitter honours a pane's minimum (a chart's) by squeezing the
    // others to theirs: the table's is MinTableRows whole rows.
    m_table->setMinimumHeight(rowsHeight(m_table, MinTableRows));
}

void PaneSizer::giveRoom(QWidget *pane, int want)
{
    keepTableFloor();
    // From the other panes in proportion to what they have beyond what they
    // keep (a hidden pane has none).
    QList<int> sizes = m_splitter->sizes();
    const int total = sum(sizes);
    const int at = m_splitter->indexOf(pane);
    QList<int> spares(sizes.size(), 0);
    int spare = 0;
    for (int i = 0; i < sizes.size(); ++i) {
        if (i != at)
            spare += spares[i] = std::max(0, sizes.at(i) - floorOf(i, total));
    }
    const int need = std::min(spare, want - sizes.value(at));
    if (need <= 0)
        return;
    for (int i = 0; i < sizes.size(); ++i) {
        if (i == at)
            continue;
        const int give = int(qint64(need) * spares.at(i) / spare);
        sizes[i] -= give;
        sizes[at] += give;
    }
    m_splitter->setSizes(sizes);
}

void PaneSizer::giveShare(QWidget *pane, int sharePercent)
{
    keepTableFloor();
    QList<int> sizes = m_splitter->sizes();
    const int total = sum(sizes);
    const int at = m_splitter->indexOf(pane);
    int need = total * sharePercent / 100 - sizes.value(at);
    for (int i = 0; i < sizes.size() && need > 0; ++i) {
        if (i == at)
            continue;
        const int give = std::min(need, std::max(0, sizes[i] - floorOf(i, total)));
        sizes[i] -= give;
        sizes[at] += give;
        need -= give;
    }
    m_splitter->setSizes(sizes);
}

void PaneSizer::fitTable(int rows, bool grow)
{
    keepTableFloor();
    // A table of a few rows (two token families, two queues) leaves no empty
    // band: it goes to the charts, or the last pane shown that can take it.
    // Nothing selected: no other pane to give to, the table keeps the page.
    QList<int> sizes = m_splitter->sizes();
    const int table = m_splitter->indexOf(m_table);
    int to = -1;
    for (int i = int(sizes.size()) - 1; i >= 0 && to < 0; --i) {
        QWidget *pane = m_splitter->widget(i);
        if (i != table && pane->isVisibleTo(m_splitter->parentWidget())
            && pane->maximumHeight() == QWIDGETSIZE_MAX)
            to = i;
    }
    if (to < 0 || sizes.value(table) <= 0)
        return;
    const int needed = rowsHeight(m_table, std::max(rows, MinTableRows))
                       + m_table->verticalHeader()->defaultSectionSize() / 2;
    int delta = sizes.at(table) - needed; // > 0: more than it needs
    if (grow) {
        // Back up to what the rows need, at most 40 % of the page, from
        // what the other pane has beyond what it keeps.
        const int total = sum(sizes);
        const int want = std::min(needed, total * 2 / 5) - sizes.at(table);
        delta = -std::min(want, std::max(0, sizes.at(to) - PaneFloor));
        if (delta >= 0)
            return;
    } else if (delta <= 0) {
        return;
    }
    sizes[table] -= delta;
    sizes[to] += delta;
    m_splitter->setSizes(sizes);
    m_tableFitted = true;
}

} // namespace gatehouse
