// SPDX-License-Identifier: MIT
#pragma once

class QSplitter;
class QTableView;
class QWidget;

namespace gatehouse {

// How a section page's panes share its height (a vertical splitter: the
// object table first, then the selected object's parts, items, jobs, panels
// and charts). A pane that appears takes its room from the others; the
// object table keeps what its rows need up to KeepRows of them (at most
// KeepShare of the page), so the list stays a list whatever opens below it.
class PaneSizer
{
public:
    PaneSizer(QSplitter *splitter, QTableView *table);

    // A table of fewer rows is as high as this many (fitTable).
    static constexpr int MinTableRows = 2;
    // The object table keeps room for this many rows when others want room,
    static constexpr int KeepRows = 8;
    // but never more than this share of the page (%).
    static constexpr int KeepSharePercent = 45;
    // What any other pane keeps when one takes room from it.
    static constexpr int PaneFloor = 120;

    // A table's height for rows rows (its header, frame and scroll bar).
    static int rowsHeight(const QTableView *table, int rows);
    // pane gets up to want px from the others, in proportion to what each
    // has beyond what it keeps.
    void giveRoom(QWidget *pane, int want);
    // The charts appearing: sharePercent of the page, from the panes that
    // have the most.
    void giveShare(QWidget *pane, int sharePercent);
    // The table keeps what its rows need (rows of them, at least
    // MinTableRows) and half a row more; the band it would leave empty goes
    // to the last pane shown that can take it. grow: takes back what its
    // rows need, at most 40 % of the page.
    void fitTable(int rows, bool grow);
    bool tableFitted() const { return m_tableFitted; }

private:
    // What pane i keeps when another takes room from it.
    int floorOf(int i, int total) const;
    // The table's minimum height: MinTableRows whole rows.
    void keepTableFloor();

    QSplitter *m_splitter;
    QTableView *m_table;
    bool m_tableFitted = false; // fitTable shrank it to its rows
};

} // namespace gatehouse
