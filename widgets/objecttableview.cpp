// SPDX-License-Identifier: MIT
#include "objecttableview.h"

#include "objecttablemodel.h"

#include <QHeaderView>
#include <QStringList>

#include <algorithm>

namespace gatehouse {

void ObjectTableView::configure(const ObjectTableModel *model)
{
    setSortingEnabled(true);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    // Figures sized to their contents, the key column taking the rest:
    // no clipped header, no wrapped cell, no "ok" stretched over 600 px.
    // Text too long for its column is elided (keys in the middle, where
    // they differ) with the whole text in the tooltip.
    QHeaderView *header = horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true); // the room left is the last column's
    // Rows measured, the visible ones first: every change of a cell (the
    // TTL and Status columns move every half second) measures them again
    // for each column, and 200 rows of text cost about 10 ms per repaint on
    // the GUI thread (figure 4's stalls); 60 covers a 1600x1000 page.
    header->setResizeContentsPrecision(60);
    // A long figure (a holder token, a state's explanation) is elided past
    // this, its tooltip whole, so the key column keeps its room at 1280 px.
    figureCap = std::max(200, fontMetrics().averageCharWidth() * 34);
    statusCap = std::max(320, fontMetrics().averageCharWidth() * 60);
    keyCap = std::max(360, fontMetrics().averageCharWidth() * 64);
    statusColumn = model->statusColumn();
    header->setMaximumSectionSize(std::max({figureCap, statusCap, keyCap}));
    for (int c = 0; c < model->columnCount(); ++c) {
        if (model->headerData(c, Qt::Horizontal).toString() == QLatin1String("Counts"))
            setItemDelegateForColumn(c, new PartsElideDelegate(this));
    }
    if (model->statusColumn() >= 0)
        setItemDelegateForColumn(model->statusColumn(), new ElideRightDelegate(this));
    // A column none of the listed objects' patterns has (Library and Counts
    // with no library lock listed) is hidden, not an empty band; checked
    // when rows come or go, not per snapshot.
    const auto used = [this, model] {
        showUsedColumns(model);
    };
    connect(model, &QAbstractItemModel::rowsInserted, this, used);
    connect(model, &QAbstractItemModel::rowsRemoved, this, used);
    connect(model, &QAbstractItemModel::modelReset, this, used);
    sortByColumn(0, Qt::AscendingOrder);
    setWordWrap(false);
    setTextElideMode(Qt::ElideMiddle);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
}

void ObjectTableView::showUsedColumns(const ObjectTableModel *model)
{
    if (m_columnsQueued)
        return;
    m_columnsQueued = true;
    QMetaObject::invokeMethod(
        this,
        [this, model] {
            m_columnsQueued = false;
            const bool any = model->rowCount() > 0;
            for (int c = 1; c < model->columnCount(); ++c) {
                const bool shown = !any || c == model->statusColumn() || model->columnUsed(c);
                if (isColumnHidden(c) == shown)
                    setColumnHidden(c, !shown);
            }
        },
        Qt::QueuedConnection);
}

int ObjectTableView::sizeHintForColumn(int column) const
{
    const int hint = QTableView::sizeHintForColumn(column);
    if (column == 0)
        return keyCap > 0 ? std::min(hint, keyCap) : hint;
    return std::min(hint, column == statusColumn ? statusCap : figureCap);
}

void ElideRightDelegate::initStyleOption(QStyleOptionViewItem *option,
                                         const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    option->textElideMode = Qt::ElideRight;
}

QString PartsElideDelegate::fitted(const QString &text, const QFontMetrics &fm, int width)
{
    if (fm.horizontalAdvance(text) <= width)
        return text;
    static const QString sep = QStringLiteral(" · ");
    const QStringList parts = text.split(sep);
    for (qsizetype keep = parts.size() - 1; keep >= 1; --keep) {
        const QString shown = parts.mid(0, keep).join(sep) + sep
                              + PartsElideDelegate::tr("+%1 more").arg(parts.size() - keep);
        if (fm.horizontalAdvance(shown) <= width)
            return shown;
    }
    return PartsElideDelegate::tr("%1 states").arg(parts.size());
}

void PartsElideDelegate::initStyleOption(QStyleOptionViewItem *option,
                                         const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    // The text rect is the cell less the style's margins (3 px a side); no
    // rect yet (sizeHint): the whole text, so the column is sized for it.
    if (option->rect.width() > 0)
        option->text = fitted(option->text, option->fontMetrics, option->rect.width() - 8);
}

} // namespace gatehouse
