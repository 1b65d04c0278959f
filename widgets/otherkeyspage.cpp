// SPDX-License-Identifier: MIT
#include "otherkeyspage.h"

#include "otherfamilymodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gatehouse {

OtherKeysPage::OtherKeysPage(QWidget *parent)
    : QWidget(parent)
    , m_model(new OtherFamilyModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_table(new QTableView(this))
    , m_summary(new QLabel(this))
{
    setObjectName(QStringLiteral("otherKeysPage"));
    auto *layout = new QVBoxLayout(this);
    m_summary->setObjectName(QStringLiteral("otherKeysSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_filter->setObjectName(QStringLiteral("otherKeysFilter"));
    m_filter->setPlaceholderText(tr("Filter by family, kind or type"));
    m_filter->setClearButtonEnabled(true);
    layout->addWidget(m_filter);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(OtherFamilyModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setObjectName(QStringLiteral("otherKeysTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(OtherFamilyModel::Keys, Qt::DescendingOrder); // the bulk first
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(OtherFamilyModel::Family, QHeaderView::Stretch);
    header->setResizeContentsPrecision(200); // rows measured: bounded on a long list
    layout->addWidget(m_table, 1);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    updateSummary();
}

void OtherKeysPage::setSnapshot(const std::shared_ptr<const Snapshot> &snapshot)
{
    const bool progress = !m_snapshot || m_snapshot->discovering != snapshot->discovering
                          || m_snapshot->scanned != snapshot->scanned;
    m_snapshot = snapshot;
    // The list changes once per discovery: nothing to do on the ticks between.
    if (snapshot->other != m_shown) {
        m_shown = snapshot->other;
        m_model->setFamilies(m_shown ? *m_shown : QList<OtherFamily>());
        updateSummary();
    } else if (progress) {
        updateSummary();
    }
}

int OtherKeysPage::count() const
{
    return m_model->rowCount();
}

QString OtherKeysPage::summary() const
{
    return m_summary->text();
}

void OtherKeysPage::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void OtherKeysPage::updateSummary()
{
    QString text;
    if (m_snapshot && m_snapshot->discovering && !m_shown) {
        text = tr("Scanning the keyspace: %1 of %2 keys…")
                   .arg(m_snapshot->scanned)
                   .arg(m_snapshot->total);
    } else if (!m_shown) {
        text = m_snapshot && m_snapshot->profile != QLatin1String("autodetected")
                       && !m_snapshot->discovering && m_snapshot->sequence > 0
                   ? tr("The profile names what to show: the other keys are not read. Start "
                        "without --profile (or with \"autodetect\": true) to see them.")
                   : tr("Autodetection has not finished a scan yet.");
    } else if (m_shown->isEmpty()) {
        text = tr("No ordinary keys: every key belongs to a structure shown on its page or "
                  "to an unconfirmed one.");
    } else {
        const qint64 keys = m_model->totalKeys();
        text = (keys == 1 ? tr("1 key") : tr("%1 keys").arg(QLocale().toString(keys)))
               + (m_shown->size() == 1 ? tr(" in 1 family")
                                       : tr(" in %1 families").arg(m_shown->size()))
               + tr(" that coordinate nothing (caches, sessions, counters, timelines, ...), "
                    "grouped by the shape of their names; memory is MEMORY USAGE of a few keys "
                    "per family, scaled to the family.");
    }
    m_summary->setText(text);
}

} // namespace gatehouse
