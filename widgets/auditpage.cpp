// SPDX-License-Identifier: MIT
#include "auditpage.h"

#include <actions/auditlog.h>

#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace gatehouse {

AuditPage::AuditPage(const QString &path, QWidget *parent)
    : QWidget(parent)
    , m_path(path)
    , m_table(new QTableWidget(0, 6, this))
{
    setObjectName(QStringLiteral("auditPage"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(
        tr("Every action attempted from this machine, newest first (%1).").arg(path), this));
    m_table->setHorizontalHeaderLabels(
        {tr("Time"), tr("User"), tr("Action"), tr("Keys"), tr("Outcome"), tr("Message")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table, 1);
    reload();
}

void AuditPage::reload()
{
    // Read on a worker: the GUI thread never touches the file. Each read has
    // its own context object and a newer read deletes the older one's, so a
    // slow older read never overwrites a newer one.
    delete findChild<QObject *>(QStringLiteral("auditRead"), Qt::FindDirectChildrenOnly);
    auto *read = new QObject(this);
    read->setObjectName(QStringLiteral("auditRead"));
    AuditLog::readTailAsync(m_path, 500, read, [this, read](const QList<QJsonObject> &entries) {
        read->deleteLater();
        m_table->setRowCount(int(entries.size()));
        for (int i = 0; i < entries.size(); ++i) {
            const QJsonObject &e = entries.at(entries.size() - 1 - i);
            QStringList keys;
            for (const QJsonValue &k : e.value(QLatin1String("keys")).toArray())
                keys << (k.isString() ? k.toString() : QStringLiteral("(binary)"));
            const QStringList cells{e.value(QLatin1String("time")).toString(),
                                    e.value(QLatin1String("user")).toString(),
                                    e.value(QLatin1String("action")).toString(),
                                    keys.join(QLatin1String(", ")),
                                    e.value(QLatin1String("outcome")).toString(),
                                    e.value(QLatin1String("message")).toString()};
            for (int c = 0; c < cells.size(); ++c)
                m_table->setItem(i, c, new QTableWidgetItem(cells.at(c)));
        }
    });
}

} // namespace gatehouse
