// SPDX-License-Identifier: MIT
#pragma once

#include "panesizer.h"

#include <monitor/snapshot.h>
#include <patterns/patternregistry.h>
#include <patterns/scriptcall.h>
#include <redis/serveridentity.h>

#include <QWidget>

#include <memory>

class QComboBox;
class QLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QTableView;
class QTableWidget;

namespace gatehouse {

class ActionRightsGate;
class ChartPanel;
class FamilyProxyModel;
class JobBrowser;
class ObjectPanel;
class ObjectTableModel;
class QueueJobsPanel;

// The page of one section of the pattern registry, the same for every
// section: a filter, one button per action the section's patterns offer
// (PatternUnit::actions), the table (their columns), the selected object's
// items (a queue's jobs in flight), its parts (a
// resource's consumers) and its charts. Nothing of a pattern is named here.
//
// An action's inputs are asked for (ActionInputDialog) and its call built by
// the pattern; the page hands the call to actionRequested, for the window to
// confirm and run.
class SectionPage : public QWidget
{
    Q_OBJECT
public:
    SectionPage(const Section &section, bool readOnly, QWidget *parent = nullptr);
    ~SectionPage() override;

    const Section &section() const { return m_section; }
    ObjectTableModel *model() const; // as of the latest snapshot
    QTableView *table() const { return m_table; }
    ChartPanel *chart() const { return m_chart; }
    // The object selected in the table, as the page shows it; nullptr when none.
    const ObjectState *selected() const;
    void selectRow(int row);
    // Selects key's row; a member of a collapsed family is listed first.
    bool selectKey(const QByteArray &key);
    // A family row is selected (selected() is then nullptr): it stands for
    // many objects, expanded to act on one.
    bool familySelected() const;
    // Expands a collapsed family row (an index of the table's model) or
    // collapses an expanded one; the selection stays on the family's row
    // when it was on one of the members collapsed.
    void toggleFamily(const QModelIndex &index);
    void focusFilter();
    // The selected object's "Why: …" line (autodetection's evidence); empty
    // when it has none.
    QString whyText() const;

    // The latest snapshot: the table follows at once while the page is on
    // screen, otherwise when it is shown (a hidden table of 10,000 rows
    // costs nothing per tick).
    void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot);
    // On the window's timer while on screen: countdowns and ages at the
    // server's time now, and (changed) the items, parts and charts.
    void refresh(qint64 serverNowMs, bool changed);
    // The table as shown (filter and sort applied) as CSV.
    bool exportCsv(const QString &fileName) const;
    // Where the job lists of library queues are read from (the window's
    // connection), searches too; without one the jobs panel stays empty.
    void setJobBrowser(JobBrowser *browser);
    // Not connected (why, one sentence) or connected (empty): the table is
    // greyed and every action disabled with that sentence as its tooltip.
    void setOffline(const QString &why);
    bool isOffline() const { return !m_offline.isEmpty(); }
    // Reads the jobs panel's page and the object panels again (after an
    // action changed what they show).
    void reloadJobs();
    // A pane for the selected object (ObjectPanel::create), above the charts.
    void addPanel(ObjectPanel *panel);
    QList<ObjectPanel *> panels() const { return m_panels; }
    // What the connected user's ACL allows: a button it would refuse is
    // disabled with what to grant (the window's one gate, shared by pages).
    void setRightsGate(ActionRightsGate *gate);
    // The jobs panel's page size: a page is all that is ever read.
    static constexpr int JobPageSize = 50;
    // A table of fewer rows is as high as this many (PaneSizer::fitTable).
    static constexpr int MinTableRows = PaneSizer::MinTableRows;

Q_SIGNALS:
    void selectionChanged(const QByteArray &key); // empty: nothing selected
    void actionRequested(const gatehouse::ScriptCall &call);
    // The same action on each job of a selection in the jobs panel: one call
    // per job, each its own atomic script, confirmed once by the window.
    void actionsRequested(const QList<gatehouse::ScriptCall> &calls);
    // Why nothing was sent (no selection, a cancelled input, a refusal).
    void message(const QString &text);

protected:
    void showEvent(QShowEvent *event) override;
    // The family arrow clicked, Right/Left on a family row.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void addActionButtons(QLayout *bar);
    ServerIdentity server() const; // as the last snapshot names it
    void buildTable();
    void buildPanes();
    void buildItems(const QStringList &headers);
    void onSelectionChanged();
    // fixed: inputs the place it was started from gives (a job browser
    // verb's "from": "dead"), never asked.
    void actOn(const QString &actionId, const QHash<QString, QByteArray> &fixed = {});
    void updateItems();
    void updateWhy(const ObjectState *s);
    void updateParts();
    void sync() const;
    void updateActions(const ObjectState *s);
    QString familyHint() const;           // for the selected family row; empty otherwise
    int selectedRow() const;              // the selection's row in m_model; -1 when none
    QByteArray chosenJob() const;         // the job whose detail is shown
    QList<QByteArray> chosenJobs() const; // every job selected, in list order

    Section m_section;
    std::shared_ptr<const Snapshot> m_snapshot;
    ObjectTableModel *m_model;
    mutable bool m_modelStale = false;
    FamilyProxyModel *m_proxy;
    QLineEdit *m_filter;
    bool m_readOnly;
    QSplitter *m_splitter;
    QTableView *m_table;
    std::unique_ptr<PaneSizer> m_sizer; // how the panes share the page
    QTableWidget *m_items = nullptr;    // when the section's patterns list items
    QListWidget *m_parts;
    QLabel *m_why = nullptr;
    ChartPanel *m_chart;
    QList<ObjectPanel *> m_panels;

    QueueJobsPanel *m_jobsPanel = nullptr; // when the section's patterns list jobs
    ActionRightsGate *m_rights = nullptr;
    QList<QPushButton *> m_actionButtons; // every pattern action of the section
    QLabel *m_actionsHint = nullptr;      // with no selection: where the actions are
    QString m_offline;                    // why the connection is not there; empty when it is
    bool m_jobChosenLast = false;         // an action's job: from the jobs panel, not the items
    // What the operator typed in an action's form, by action id and object
    // key: a form opened again for the same starts with it.
    static constexpr int TypedKept = 256;
    QHash<QByteArray, QHash<QString, QByteArray>> m_typed;
};

} // namespace gatehouse
