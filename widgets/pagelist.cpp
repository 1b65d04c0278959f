// SPDX-License-Identifier: MIT
#include "pagelist.h"

#include "consolenavigation.h"
#include "sidelist.h"

namespace gatehouse {

PageList::PageList(QWidget *parent)
    : QListWidget(parent)
{
    setObjectName(QStringLiteral("sideList"));
    setIconSize(QSize(22, 22));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
}

QIcon PageList::blankIcon() const
{
    QPixmap blank(iconSize());
    blank.fill(Qt::transparent);
    return QIcon(blank);
}

QListWidgetItem *PageList::addPage(const QString &title)
{
    auto *entry = new QListWidgetItem(title, this);
    entry->setData(Qt::UserRole, title); // the text gains counts (setCount, setTally)
    entry->setToolTip(ConsoleNavigation::withShortcut(title, count() - 1));
    entry->setIcon(blankIcon()); // every entry indented alike, with a badge or without
    return entry;
}

QStringList PageList::names() const
{
    QStringList names;
    for (int i = 0; i < count(); ++i)
        names << item(i)->data(Qt::UserRole).toString();
    return names;
}

void PageList::fitWidth()
{
    int widest = 0;
    for (const QString &name : names())
        widest = std::max(widest, fontMetrics().horizontalAdvance(name));
    setFixedWidth(widest + iconSize().width()
                  + fontMetrics().horizontalAdvance(QStringLiteral("  00000")) + 28);
}

void PageList::setCount(int row, int n)
{
    if (QListWidgetItem *entry = item(row))
        entry->setText(QStringLiteral("%1  %2").arg(entry->data(Qt::UserRole).toString()).arg(n));
}

void PageList::setTally(int row, const SectionTally &t, bool offline)
{
    QListWidgetItem *entry = item(row);
    if (!entry)
        return;
    setCount(row, t.objects);
    const int size = iconSize().width();
    entry->setIcon(offline ? badgeIcon(Severity::Muted, 0, palette(), size)
                           : badgeIcon(t.worst, t.attention, palette(), size));
    entry->setToolTip(ConsoleNavigation::withShortcut(
        offline ? tr("States unknown while disconnected; last read: %1").arg(t.toolTip())
                : t.toolTip(),
        row));
}

void PageList::fillBlankIcons()
{
    const QIcon blank = blankIcon();
    for (int i = 0; i < count(); ++i) {
        if (item(i)->icon().isNull())
            item(i)->setIcon(blank);
    }
}

} // namespace gatehouse
