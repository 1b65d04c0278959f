// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace gatehouse {

class OtherFamilyModel;

// The Other keys page: the keys that coordinate nothing, as autodetection
// summarised them (Snapshot::other), a row per family: its name pattern,
// what it is (cache, session, dated counter, timeline, leaderboard, page
// cache, flag, log, ...), type, key count, memory sampled with MEMORY USAGE
// and TTL range. Sortable by any column, filtered by any text (Ctrl+F).
// The proof that autodetection saw them and did not take them for
// limiters, locks, tokens or queues.
class OtherKeysPage : public QWidget
{
    Q_OBJECT
public:
    explicit OtherKeysPage(QWidget *parent = nullptr);

    void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot);
    int count() const; // families listed
    OtherFamilyModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QString summary() const;
    void focusFilter();

private:
    void updateSummary();

    OtherFamilyModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
    QLabel *m_summary;
    std::shared_ptr<const Snapshot> m_snapshot;
    std::shared_ptr<const QList<OtherFamily>> m_shown; // a new list per discovery
};

} // namespace gatehouse
