// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/snapshot.h>

#include <QDialog>

#include <memory>

class QLineEdit;
class QListWidget;

namespace gatehouse {

// Ctrl+K: every object of the latest snapshot, whatever its page, found by a
// part of its key (case-insensitive); Enter or a click chooses one. The
// search runs over the snapshot already in memory: nothing is read from Redis.
class ObjectSearch : public QDialog
{
    Q_OBJECT
public:
    // At most this many matches are listed (the count of all is shown).
    static constexpr int MaxShown = 200;

    explicit ObjectSearch(std::shared_ptr<const Snapshot> snapshot, QWidget *parent = nullptr);

    void setQuery(const QString &text);
    QListWidget *results() const { return m_results; }

Q_SIGNALS:
    void chosen(const QString &section, const QByteArray &key);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void update();
    void choose();

    std::shared_ptr<const Snapshot> m_snapshot;
    QLineEdit *m_query;
    QListWidget *m_results;
};

} // namespace gatehouse
