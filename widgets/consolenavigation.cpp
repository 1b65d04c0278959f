// SPDX-License-Identifier: MIT
#include "consolenavigation.h"

#include "jobsearchbar.h"
#include "mainwindow.h"
#include "nodespage.h"
#include "objectsearch.h"
#include "objecttablemodel.h"
#include "sectionpage.h"
#include "theme.h"

#include <redis/redisvalue.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include <tuple>

namespace gatehouse {

// Ctrl+1 .. Ctrl+9, then Ctrl+0 for the tenth page (as browsers number tabs);
// pages past the tenth take Alt+1, Alt+2 …, Qt Creator's second row (its
// output panes), so every page has one and no digit means two pages.
QKeySequence ConsoleNavigation::pageShortcut(int page)
{
    if (page < 0 || page >= MaxPages)
        return {};
    const Qt::KeyboardModifier modifier = page < 10 ? Qt::ControlModifier : Qt::AltModifier;
    const int digit = (page % 10 + 1) % 10; // 1 … 9, then 0
    return QKeySequence(modifier | Qt::Key(Qt::Key_0 + digit));
}

QString ConsoleNavigation::withShortcut(const QString &toolTip, int page)
{
    const QKeySequence keys = pageShortcut(page);
    if (keys.isEmpty())
        return toolTip;
    const QString line = tr("Shortcut: %1").arg(keys.toString(QKeySequence::NativeText));
    return toolTip.isEmpty() ? line : toolTip + QLatin1Char('\n') + line;
}

ConsoleNavigation::ConsoleNavigation(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    setObjectName(QStringLiteral("consoleNavigation"));
    // Page shortcuts are QShortcuts of the window, not menu entries: pages
    // added after this (by other parts of the window) still get theirs.
    for (int page = 0; page < MaxPages; ++page) {
        auto *shortcut = new QShortcut(pageShortcut(page), window);
        connect(shortcut, &QShortcut::activated, this, [this, page] {
            if (page < m_window->pageNames().size())
                m_window->showPage(page);
        });
    }

    QMenu *view = window->viewMenu(); // one View menu, shared with the metrics item
    QMenu *pages = view->addMenu(tr("&Pages"));
    pages->setObjectName(QStringLiteral("pagesMenu"));
    connect(pages, &QMenu::aboutToShow, this, [this, pages] { fillPagesMenu(pages); });
    fillPagesMenu(pages);
    QAction *search = view->addAction(tr("&Go to object…"), this, [this] { openSearch(); });
    search->setObjectName(QStringLiteral("goToObject"));
    search->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    QAction *jobs = view->addAction(tr("Search &jobs…"), this, [this] { focusJobSearch(); });
    jobs->setObjectName(QStringLiteral("searchJobs"));
    jobs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    QAction *all
        = view->addAction(tr("All &Deployments"), window, &MainWindow::allDeploymentsRequested);
    all->setObjectName(QStringLiteral("allDeployments"));
    all->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    addPaletteMenu(view);

    QMenu *actions = window->menuBar()->addMenu(tr("&Actions"));
    // Enter is the table's own (QAbstractItemView::activated): a window
    // shortcut would take Enter from every field and dialog button.
    QAction *detail = actions->addAction(tr("&Details\tEnter"), this, [this] { showDetail(); });
    detail->setObjectName(QStringLiteral("showDetail"));
    QAction *primary
        = actions->addAction(tr("&Primary action…"), this, [this] { triggerPrimaryAction(); });
    primary->setObjectName(QStringLiteral("primaryAction"));
    // A line edit with focus keeps Delete (it overrides the shortcut).
    primary->setShortcut(QKeySequence::Delete);
    primary->setToolTip(tr("The selected object's first action: force release, requeue, "
                           "reset, revoke …, always through its confirmation"));
    actions->addSeparator();
    QAction *copyKeyAction = actions->addAction(tr("Copy &key"), this, [this] { copyKey(); });
    copyKeyAction->setObjectName(QStringLiteral("copyKey"));
    copyKeyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    QAction *copyTokenAction = actions->addAction(tr("Copy &token"), this, [this] { copyToken(); });
    copyTokenAction->setObjectName(QStringLiteral("copyToken"));

    QMenu *help = window->menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this, [this] { showShortcuts(); });
    help->addAction(tr("&About Gatehouse"), this, [this] {
        QMessageBox::about(m_window, tr("About Gatehouse"),
                           tr("<b>Gatehouse %1</b><br>An operator console for Redis "
                              "coordination structures: rate limiters, locks, tokens and job "
                              "queues.")
                               .arg(QApplication::applicationVersion()));
    });

    for (int i = 0; i < window->pageNames().size(); ++i) {
        if (auto *page = qobject_cast<SectionPage *>(window->page(i)))
            addTableMenu(page);
    }
}

QList<ConsoleNavigation::Shortcut> ConsoleNavigation::shortcuts() const
{
    QList<Shortcut> out;
    const QStringList names = m_window->pageNames();
    for (int i = 0; i < names.size(); ++i) {
        if (const QKeySequence keys = pageShortcut(i); !keys.isEmpty())
            out.append({keys.toString(QKeySequence::PortableText), tr("page %1").arg(names.at(i))});
    }
    for (QAction *menu : m_window->menuBar()->actions()) {
        if (menu->menu())
            addMenuShortcuts(out, menu->text().remove(QLatin1Char('&')), menu->menu()->actions());
    }
    return out;
}

// An action's keys are its shortcut, or what its text shows after a tab for
// keys another widget handles (Enter is the table's own).
void ConsoleNavigation::addMenuShortcuts(QList<Shortcut> &out, const QString &path,
                                         const QList<QAction *> &actions) const
{
    for (QAction *a : actions) {
        QString text = a->text().remove(QLatin1Char('&'));
        const qsizetype tab = text.indexOf(QLatin1Char('\t'));
        const QString shown = tab >= 0 ? text.mid(tab + 1) : QString();
        text = text.left(tab).trimmed();
        if (a->menu()) {
            // The Pages menu repeats the page shortcuts listed above.
            if (a->menu()->objectName() != QLatin1String("pagesMenu"))
                addMenuShortcuts(out, path + QStringLiteral(" > ") + text, a->menu()->actions());
            continue;
        }
        QString keys = a->shortcut().toString(QKeySequence::PortableText);
        if (keys.isEmpty())
            keys = QKeySequence(shown).toString(QKeySequence::PortableText);
        if (!keys.isEmpty())
            out.append({keys, path + QStringLiteral(" > ") + text});
    }
}

void ConsoleNavigation::showShortcuts()
{
    QString rows;
    for (const Shortcut &s : shortcuts()) {
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(QKeySequence(s.keys).toString(QKeySequence::NativeText).toHtmlEscaped(),
                         s.what.toHtmlEscaped());
    }
    QMessageBox::information(m_window, tr("Keyboard shortcuts"),
                             QStringLiteral("<table>%1</table>").arg(rows));
}

void ConsoleNavigation::fillPagesMenu(QMenu *menu)
{
    menu->clear();
    const QStringList names = m_window->pageNames();
    for (int i = 0; i < names.size(); ++i) {
        QAction *a = menu->addAction(names.at(i), this, [this, i] { m_window->showPage(i); });
        // Shown, not bound: the QShortcuts above do the work.
        if (const QKeySequence keys = pageShortcut(i); !keys.isEmpty())
            a->setText(names.at(i) + QLatin1Char('\t') + keys.toString(QKeySequence::NativeText));
    }
}

void ConsoleNavigation::addTableMenu(SectionPage *page)
{
    QTableView *table = page->table();
    connect(table, &QAbstractItemView::activated, this, [this] { showDetail(); });
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table, &QWidget::customContextMenuRequested, this, [this, page](const QPoint &at) {
        const QModelIndex index = page->table()->indexAt(at);
        if (!index.isValid())
            return;
        page->table()->selectRow(index.row());
        QMenu menu(page->table());
        menu.setObjectName(QStringLiteral("tableContextMenu"));
        menu.addAction(tr("Details"), this, [this] { showDetail(); });
        menu.addAction(tr("Copy key"), this, [this] { copyKey(); });
        const ObjectState *s = page->selected();
        if (s && !PatternUnit::of(s->object->kind).holderToken(*s).isEmpty())
            menu.addAction(tr("Copy token"), this, [this] { copyToken(); });
        // The page's own action buttons, as they stand (enabled, with their reasons).
        bool first = true;
        for (QPushButton *button :
             page->findChildren<QPushButton *>(QString(), Qt::FindDirectChildrenOnly)) {
            if (!button->property("patternAction").isValid() || !button->isVisible())
                continue;
            if (first)
                menu.addSeparator();
            first = false;
            QAction *a = menu.addAction(button->text(), button, &QPushButton::click);
            a->setEnabled(button->isEnabled());
            a->setToolTip(button->toolTip());
        }
        menu.exec(page->table()->viewport()->mapToGlobal(at));
    });
}

void ConsoleNavigation::openObject(const QString &section, const QByteArray &key)
{
    if (SectionPage *page = m_window->sectionPage(section)) {
        m_window->showPage(m_window->pageOf(section));
        page->selectKey(key);
        return;
    }
    if (section != QLatin1String("node"))
        return;
    // A node's alert (down, lagging): its row on the Nodes page.
    for (int i = 0; i < m_window->pageNames().size(); ++i) {
        auto *nodesPage = qobject_cast<NodesPage *>(m_window->page(i));
        if (!nodesPage)
            continue;
        m_window->showPage(i);
        QTableWidget *nodes = nodesPage->table();
        for (int row = 0; row < nodes->rowCount(); ++row) {
            const QTableWidgetItem *cell = nodes->item(row, NodesPage::Address);
            if (cell && cell->text() == QString::fromUtf8(key))
                nodes->selectRow(row);
        }
    }
}

void ConsoleNavigation::focusJobSearch()
{
    // The page shown: its search bar is on screen once a library queue is
    // chosen (the Queues page).
    SectionPage *page = currentSection();
    JobSearchBar *bar = page ? page->findChild<JobSearchBar *>() : nullptr;
    if (bar && bar->focusField())
        return;
    say(tr("Choose a library queue on the Queues page first: its jobs can then be searched "
           "(Ctrl+Shift+F)."));
}

SectionPage *ConsoleNavigation::currentSection() const
{
    return qobject_cast<SectionPage *>(m_window->page(m_window->currentPage()));
}

void ConsoleNavigation::say(const QString &text)
{
    m_window->statusBar()->showMessage(text, 8000);
}

ObjectSearch *ConsoleNavigation::openSearch()
{
    if (m_search) {
        m_search->raise();
        m_search->activateWindow();
        return m_search;
    }
    m_search = new ObjectSearch(m_window->snapshot(), m_window);
    m_search->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_search, &ObjectSearch::chosen, this,
            [this](const QString &section, const QByteArray &key) {
                SectionPage *page = m_window->sectionPage(section);
                if (!page)
                    return;
                m_window->showPage(m_window->pageOf(section));
                if (!page->selectKey(key))
                    say(tr("%1 is not on the %2 page (a filter hides it, or it is gone).")
                            .arg(printableBytes(key, 80), page->section().title));
                page->table()->setFocus();
            });
    m_search->show();
    return m_search;
}

bool ConsoleNavigation::triggerPrimaryAction()
{
    SectionPage *page = currentSection();
    if (!page || (!page->selected() && !page->familySelected())) {
        say(tr("Select an object first: Delete runs its primary action."));
        return false;
    }
    // Button order is the registry's: the first action of the section's
    // patterns is their main one (release, requeue, reset, revoke). An
    // action that needs no selected object (issue a token) is not primary.
    QString why;
    for (QPushButton *button :
         page->findChildren<QPushButton *>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!button->property("patternAction").isValid()
            || button->property("targetIsPrefix").toBool())
            continue;
        if (button->isEnabled()) {
            button->click();
            return true;
        }
        if (why.isEmpty())
            why = button->toolTip();
    }
    say(why.isEmpty() ? tr("No action applies to the selected object.")
                      : tr("No action for the selection: %1").arg(why));
    return false;
}

QWidget *ConsoleNavigation::showDetail()
{
    SectionPage *page = currentSection();
    const ObjectState *s = page ? page->selected() : nullptr;
    if (!s && page && page->familySelected())
        return nullptr; // Enter on a family row lists its members (SectionPage)
    if (!s) {
        say(tr("Select an object first: Enter shows its details."));
        return nullptr;
    }
    delete m_detail;
    auto *dialog = new QDialog(m_window);
    m_detail = dialog;
    dialog->setObjectName(QStringLiteral("objectDetail"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(
        tr("%1: %2").arg(page->section().singular,
                         PatternUnit::of(s->object->kind).displayName(s->object).left(60)));
    auto *form = new QFormLayout;
    auto addRow = [dialog, form](const QString &label, const QString &value) {
        auto *field = new QLabel(value, dialog);
        field->setTextInteractionFlags(Qt::TextSelectableByMouse);
        field->setWordWrap(true);
        form->addRow(label, field);
    };
    addRow(tr("Key:"), printableBytes(s->object->key));
    // Every column as the table shows it now (the row of the selection).
    const QModelIndexList rows = page->table()->selectionModel()->selectedRows();
    const QAbstractItemModel *model = page->table()->model();
    if (!rows.isEmpty()) {
        for (int c = 1; c < model->columnCount(); ++c) {
            const QString header = model->headerData(c, Qt::Horizontal).toString();
            const QModelIndex cell = model->index(rows.first().row(), c);
            const QString tip = cell.data(Qt::ToolTipRole).toString();
            const QString text = cell.data(Qt::DisplayRole).toString();
            if (header.isEmpty() || (text.isEmpty() && tip.isEmpty()))
                continue;
            addRow(header + QLatin1Char(':'),
                   tip.isEmpty() || tip == text ? text : text + QLatin1String("\n") + tip);
        }
    }
    if (const QByteArray token = PatternUnit::of(s->object->kind).holderToken(*s); !token.isEmpty())
        addRow(tr("Token:"), printableBytes(token));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QPushButton *copy = buttons->addButton(tr("Copy key"), QDialogButtonBox::ActionRole);
    const QByteArray key = s->object->key;
    connect(copy, &QPushButton::clicked, dialog, [copy, key] {
        QGuiApplication::clipboard()->setText(QString::fromUtf8(key));
        copy->setText(ConsoleNavigation::tr("Copied"));
    });
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto *layout = new QVBoxLayout(dialog);
    layout->addLayout(form);
    layout->addWidget(buttons);
    dialog->resize(520, dialog->sizeHint().height());
    dialog->show();
    return dialog;
}

void ConsoleNavigation::copyKey()
{
    SectionPage *page = currentSection();
    const ObjectState *s = page ? page->selected() : nullptr;
    if (!s) {
        say(tr("Select an object first to copy its key."));
        return;
    }
    QGuiApplication::clipboard()->setText(QString::fromUtf8(s->object->key));
    say(tr("Copied the key %1.").arg(printableBytes(s->object->key, 80)));
}

void ConsoleNavigation::copyToken()
{
    SectionPage *page = currentSection();
    const ObjectState *s = page ? page->selected() : nullptr;
    const QByteArray token = s ? PatternUnit::of(s->object->kind).holderToken(*s) : QByteArray();
    if (token.isEmpty()) {
        say(tr("The selection has no holder token to copy (only locks do)."));
        return;
    }
    QGuiApplication::clipboard()->setText(QString::fromUtf8(token));
    say(tr("Copied the holder token of %1.").arg(printableBytes(s->object->key, 80)));
}

void ConsoleNavigation::addPaletteMenu(QMenu *view)
{
    // Light or dark, both with tested contrast; the choice is remembered and
    // used at the next start unless --palette says otherwise.
    QMenu *menu = view->addMenu(tr("P&alette"));
    menu->setObjectName(QStringLiteral("paletteMenu"));
    auto *group = new QActionGroup(menu);
    const theme::Scheme current = theme::schemeOf(QApplication::palette());
    for (const auto &[scheme, label, name] :
         {std::tuple{theme::Scheme::Light, tr("&Light"), QStringLiteral("light")},
          std::tuple{theme::Scheme::Dark, tr("&Dark"), QStringLiteral("dark")}}) {
        QAction *a = menu->addAction(label);
        a->setObjectName(QStringLiteral("palette-") + name);
        a->setCheckable(true);
        a->setChecked(scheme == current);
        group->addAction(a);
        // Copies: a structured binding is not captured before C++20.
        connect(a, &QAction::triggered, this, [s = scheme, id = name] {
            theme::apply(s);
            QSettings().setValue(theme::SettingsKey, id);
        });
    }
}

} // namespace gatehouse
