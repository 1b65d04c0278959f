// SPDX-License-Identifier: MIT
#pragma once

#include "objectpanel.h"

#include <monitor/tokenlister.h>

#include <QHash>
#include <QSet>

#include <optional>

class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

namespace gatehouse {

// A token family expanded into its live tokens: masked key, TTL, use count
// (counted tokens) and payload size, read on demand by a bounded SCAN
// (TokenLister) and never more than MaxShown rows ("12 of about 40 live
// tokens"); a selection of them revoked through the family's own revoke
// action, one confirmation for all. And a chart of what came and went per
// reading: the members the monitor's readings add (issued) and drop (used,
// revoked or expired), followed for every family from the snapshots.
class TokenListPanel : public ObjectPanel
{
    Q_OBJECT
public:
    static constexpr int MaxShown = 200;
    // A family with more members than this is not diffed (its chart says so).
    static constexpr int MaxDiffedMembers = 50000;
    static constexpr int MaxSamples = 1800; // per family: 30 min at one reading a second

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

    // For tests: the full keys of the rows shown, in order, and the selected ones.
    QList<QByteArray> shownKeys() const;
    QList<Flow> flow(const QByteArray &family) const { return m_flows.value(family).samples; }
    bool isLoading() const { return m_loading; }

private:
    void showListing(const TokenListing &listing);
    void revokeSelected();
    void updateButtons();
    void follow(const ObjectState &family, qint64 atMs, bool discovering);
    void drawFlow();
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
    QCustomPlot *m_flowPlot;
    struct Followed
    {
        QSet<QByteArray> members;
        bool diffed = true; // false: too large to diff
        QList<Flow> samples;
    };
    QHash<QByteArray, Followed> m_flows;
    QString m_offline;
    bool m_loading = false;
    qsizetype m_shown = 0;
    bool m_complete = false;
    bool m_listedOk = true; // false: the range label says what went wrong
};

} // namespace gatehouse
