// SPDX-License-Identifier: MIT
#include "objecttableview.h"

#include <QStringList>

#include <algorithm>

namespace gatehouse {

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
