// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QWidget>

class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace gatehouse {

// Every action attempted from this machine, newest first: the tail of the
// audit log (AuditLog::readTailAsync), read off the GUI thread. A filter
// over every column, the chosen entry in full below (pretty-printed), and a
// link to the object it acted on.
class AuditPage : public QWidget
{
    Q_OBJECT
public:
    explicit AuditPage(const QString &path, QWidget *parent = nullptr);

    // Reads the tail again (after an action was audited).
    void reload();
    QTableWidget *table() const { return m_table; }
    void focusFilter();
    void setFilter(const QString &text);
    int visibleRows() const;
    // The section whose patterns offer an action id ("lock.force-release":
    // "lock"); empty when none does.
    static QString sectionOfAction(const QString &actionId);

Q_SIGNALS:
    void openRequested(const QString &section, const QByteArray &key);

private:
    void applyFilter();
    void showDetail();

    QString m_path;
    QLineEdit *m_filter;
    QTableWidget *m_table;
    QPlainTextEdit *m_detail;
    QPushButton *m_open;
    QList<QJsonObject> m_entries; // newest first, as the rows
};

} // namespace gatehouse
