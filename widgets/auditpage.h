// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QTableWidget;

namespace gatehouse {

// Every action attempted from this machine, newest first: the tail of the
// audit log (AuditLog::readTailAsync), read off the GUI thread.
class AuditPage : public QWidget
{
    Q_OBJECT
public:
    explicit AuditPage(const QString &path, QWidget *parent = nullptr);

    // Reads the tail again (after an action was audited).
    void reload();
    QTableWidget *table() const { return m_table; }

private:
    QString m_path;
    QTableWidget *m_table;
};

} // namespace gatehouse
