// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>
#include <QTableView>

namespace gatehouse {

class ObjectTableModel;

// The object table: a figure is sized to its content up to figureCap (past
// it elided, whole in its tooltip); the Status column up to statusCap, wide
// enough for a state's whole words ("expired 9.3 min ago: holder crashed,
// may be taken over"): the state is what the operator reads the row for;
// the key column up to keyCap, so a key is whole at 1280 px and an
// 800 px band at 1920 is the last column's, not the key's.
class ObjectTableView : public QTableView
{
public:
    using QTableView::QTableView;
    // The columns of model (the source of the view's model): figures sized to
    // their contents, the key column taking the rest, the caps from the
    // font, the Status and Counts columns' delegates, sorted by key; a column
    // none of the listed objects' patterns has is hidden.
    void configure(const ObjectTableModel *model);

    int statusColumn = -1;
    int figureCap = 0;
    int statusCap = 0;
    int keyCap = 0;

protected:
    int sizeHintForColumn(int column) const override;

private:
    // Hides the columns no listed object uses; on the next turn of the event
    // loop, once however many rows came or went.
    void showUsedColumns(const ObjectTableModel *model);

    bool m_columnsQueued = false;
};

// A state past its column's width loses its end, not its middle ("expired
// 1.0 mi… be taken over"): its first words say the most.
class ElideRightDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

// Parts joined by " · " ("wait 5 · active 1 · waiting-children 0") past
// the column's width: the whole parts that fit and "+N more", never a part
// cut in the middle; the whole text is the cell's tooltip.
class PartsElideDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    // The parts of text that fit width in fm, and "+N more" for the rest.
    static QString fitted(const QString &text, const QFontMetrics &fm, int width);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

} // namespace gatehouse
