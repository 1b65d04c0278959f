// SPDX-License-Identifier: MIT
#pragma once

#include <QListWidget>

namespace gatehouse {

struct SectionTally;

// The side list of the window's pages: a page's name, how many it lists
// ("Locks  12") and, for a section, a badge in its worst state's colour with
// how many need attention. Sized to its widest entry with a count, and kept
// at that width.
class PageList : public QListWidget
{
    Q_OBJECT
public:
    explicit PageList(QWidget *parent = nullptr);

    // A page's entry, last; its name stays what names() gives.
    QListWidgetItem *addPage(const QString &title);
    QStringList names() const;
    // Fixed to the widest name with room for a count.
    void fitWidth();
    // "Name  n".
    void setCount(int row, int count);
    // A section's count and badge; offline, a grey badge without a count
    // (the states are the last read, going stale).
    void setTally(int row, const SectionTally &tally, bool offline);
    // Every entry indented alike: a page added before the list had its icon
    // size got an empty icon, which takes no room.
    void fillBlankIcons();

private:
    QIcon blankIcon() const;
};

} // namespace gatehouse
