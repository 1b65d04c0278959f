// SPDX-License-Identifier: MIT
#pragma once

#include <QKeySequence>
#include <QList>
#include <QObject>
#include <QPointer>

class QAction;
class QMenu;
class QTableView;

namespace gatehouse {

class MainWindow;
class ObjectSearch;
class SectionPage;

// The keyboard and the menus over a MainWindow's pages, kept out of the
// window itself: View (every page, Ctrl+1..9, Ctrl+0, then Alt+1..; Go to object,
// Ctrl+K), Actions (Details, Enter; the selection's primary action, Delete,
// through its confirmation; Copy key; Copy token), Help (shortcuts, About),
// and a context menu on every section's table. It uses only the window's
// public face: pages, their tables and their action buttons.
class ConsoleNavigation : public QObject
{
    Q_OBJECT
public:
    explicit ConsoleNavigation(MainWindow *window);

    // The most pages with a shortcut: Ctrl+1 … Ctrl+0, Alt+1 … Alt+0.
    static constexpr int MaxPages = 20;
    // Page index's shortcut (empty past MaxPages), and a side-list tooltip
    // with it on a line of its own.
    static QKeySequence pageShortcut(int page);
    static QString withShortcut(const QString &toolTip, int page);

    // Every keyboard shortcut of the window, as Help > Keyboard shortcuts
    // lists it: the keys (QKeySequence::PortableText, "Ctrl+Shift+C") and what
    // they do ("Actions > Copy key", "page Queues"), read from the window's own
    // menus and page shortcuts so the list cannot drift from the keys.
    struct Shortcut
    {
        QString keys;
        QString what;
    };
    QList<Shortcut> shortcuts() const;

    // A section's object (its page, selected), or a node's row on the Nodes
    // page: where the Overview, the Alerts page and the audit log point.
    void openObject(const QString &section, const QByteArray &key);
    // Ctrl+K: the search over every object; it selects the chosen one on its page.
    ObjectSearch *openSearch();
    // Delete: the current page's primary action for its selection (the first
    // enabled action button that acts on a selected object). False, with a
    // sentence in the status bar, when there is none.
    bool triggerPrimaryAction();
    // Enter: the selected object's every column in a dialog (non-modal).
    QWidget *showDetail();
    void copyKey();
    void copyToken();
    // View > Search jobs (Ctrl+Shift+F): the keyboard in the job search field
    // of the queue shown, or a sentence saying how to get one.
    void focusJobSearch();

private:
    SectionPage *currentSection() const;
    void addTableMenu(SectionPage *page);
    void fillPagesMenu(QMenu *menu);
    void addPaletteMenu(QMenu *view);
    void addMenuShortcuts(QList<Shortcut> &out, const QString &path,
                          const QList<QAction *> &actions) const;
    void showShortcuts();
    void say(const QString &text);

    MainWindow *m_window;
    QPointer<ObjectSearch> m_search;
    QPointer<QWidget> m_detail;
};

} // namespace gatehouse
