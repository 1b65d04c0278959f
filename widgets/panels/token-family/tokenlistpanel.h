// SPDX-License-Identifier: MIT
#pragma once

#include <panels/panelregistry.h>

#include <monitor/tokenlister.h>

#include <QHash>
#include <QSet>

#include <optional>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace gatehouse {

class HistoryRangeBar;

// A token family expanded into its live tokens: masked key, TTL, use count
// (counted tokens) and payload size, read on demand by a bounded SCAN
// (TokenLister) and never more than MaxShown rows ("12 of about 40 live
// tokens"); a selection of them revoked through the family's own revoke
// action, one confirmation for all. And a chart of what came and went per
// reading: the members the monitor's readings add (issued) and drop (used,
// revoked or expired), followed for every family from the snapshots. With a
// history file, the flow is recorded there in BucketMs sums (events
// "token.flow", text "<issued> <gone>"), and its range bar (last hour, day,
// week, custom) reads them back, from earlier runs too, off the GUI thread.
class TokenListPanel : public ObjectPanel
{
    Q_OBJECT
public:
    // Its registration (panels/builtinpanels.cpp).
    static PanelRegistry::Panel registration();

    static constexpr int MaxShown = 200;
    // A family with more members than this is not diffed (its chart says so).
    static constexpr int MaxDiffedMembers = 50000;
    static constexpr int MaxSamples = 1800; // per family: 30 min at one reading a second
    // The history file's grain: one event per family per bucket with a change.
    static constexpr qint64 BucketMs = 10000;
    // At most this many buckets read back for a range (a week is 60480).
    static constexpr int MaxHistoryEvents = 70000;

    // What one reading changed in a family: server time, members added and dropped.
    struct Flow
    {
        qint64 atMs = 0;
        qint64 issued = 0;
        qint64 gone = 0;
    };

    TokenListPanel(const Context &context, QWidget *parent = nullptr);

    void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot) override;
    void setObject(const ObjectState *state) override;
    void setOffline(const QString &why) override;
    void reload() override;
    void setHistory(const std::weak_ptr<HistoryStore> &store, const QString &file) override;

    // For tests: the full keys of the rows shown, in order, and the selected ones.
    QList<QByteArray> shownKeys() const;
    QList<Flow> flow(const QByteArray &family) const { return m_flows.value(family).samples; }
    bool isLoading() const { return m_loading; }
    // For tests: the range bar, whether a read of the file is under way, and
    // the flow read back from it for the shown family (bucket sums).
    HistoryRangeBar *rangeBar() const { return m_rangeBar; }
    bool isReadingHistory() const { return m_readingHistory; }
    QList<Flow> historyFlow() const { return m_fileFlow; }

private:
    void showListing(const TokenListing &listing);
    void revokeSelected();
    void updateButtons();
    void follow(const ObjectState &family, qint64 atMs, bool discovering);
    void drawFlow();
    void record(const QByteArray &family, const Flow &bucket);
    void readHistory();
    bool historyMode() const;
    QList<QByteArray> selectedKeys() const;

    Context m_context;
    TokenLister *m_lister;
    std::shared_ptr<const Snapshot> m_snapshot;
    std::optional<ObjectState> m_family; // as last selected
    QLabel *m_title;
    QLabel *m_range;
    QPushButton *m_reload;
    QPushButton *m_revoke;
    QTableWidget *m_tokens;
    QLabel *m_flowNote;
    QLabel *m_flowTitle;
    QCustomPlot *m_flowPlot;
    struct Followed
    {
        QSet<QByteArray> members;
        bool diffed = true; // false: too large to diff
        QList<Flow> samples;
        Flow bucket; // the history file's current bucket (atMs: its start; 0: none)
    };
    QHash<QByteArray, Followed> m_flows;
    QString m_offline;
    bool m_loading = false;
    qsizetype m_shown = 0;
    bool m_complete = false;
    bool m_listedOk = true; // false: the range label says what went wrong
    HistoryRangeBar *m_rangeBar;
    std::weak_ptr<HistoryStore> m_store;
    QString m_historyFile;
    QList<Flow> m_fileFlow; // read back for m_fileFamily over the range
    QByteArray m_fileFamily;
    quint64 m_readGeneration = 0;
    bool m_readingHistory = false;
};

} // namespace gatehouse
