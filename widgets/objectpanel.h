// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>
#include <patterns/scriptcall.h>

#include <QSet>
#include <QWidget>

#include <memory>

namespace gatehouse {

class HistoryStore;
class ConsoleReads;

// A pane a section's page shows under its table for the selected object,
// beyond the columns, items and charts every pattern declares: a token
// family's live tokens (TokenListPanel), a lock's holders over time
// (LockTimelinePanel). A pattern registers its panels with the
// PanelRegistry (panels/builtinpanels.cpp); a section's page gets those of its
// patterns, hands each one every snapshot and the selection, and forwards
// what it asks for (actions go through the window's confirmation, like the
// page's own).
class ObjectPanel : public QWidget
{
    Q_OBJECT
public:
    // What a panel may use: the console's reads (ConsoleReads; none in
    // tests that need no Redis), whether actions are disabled for good, and the
    // patterns it was registered for on this page (the objects it follows).
    struct Context
    {
        ConsoleReads *reads = nullptr;
        bool readOnly = false;
        QSet<PatternKind> kinds;
    };

    using QWidget::QWidget;

    // Every snapshot, on screen or not (a panel that follows objects over
    // time must see each one; it keeps the work per snapshot small).
    virtual void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot) { Q_UNUSED(snapshot) }
    // The object selected on the page (nullptr: none), again after each
    // snapshot while it stays selected. A panel with nothing to show for it
    // hides itself.
    virtual void setObject(const ObjectState *state) = 0;
    // Not connected (why) or connected (empty): its actions disabled.
    virtual void setOffline(const QString &why) { Q_UNUSED(why) }
    // Read again what it read (after an action changed it).
    virtual void reload() {}
    // The connection's history file (HistoryStore): what a panel records
    // there (events) and reads back from earlier runs. Not called: no history.
    virtual void setHistory(const std::weak_ptr<HistoryStore> &store, const QString &file)
    {
        Q_UNUSED(store)
        Q_UNUSED(file)
    }

Q_SIGNALS:
    // One call per target, confirmed once by the window (MainWindow::actOnEach).
    void actionsRequested(const QList<gatehouse::ScriptCall> &calls);
    void message(const QString &text);
};

} // namespace gatehouse
