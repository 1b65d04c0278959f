// SPDX-License-Identifier: MIT
#include "auditpage.h"

#include "theme.h"

#include <actions/auditlog.h>
#include <patterns/patternregistry.h>

#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace gatehouse {

namespace {

// The entry's keys as written (binary ones are objects: {"base64": ...}).
QStringList keysOf(const QJsonObject &e)
{
    QStringList keys;
    for (const QJsonValue &k : e.value(QLatin1String("keys")).toArray())
        keys << (k.isString() ? k.toString() : QStringLiteral("(binary)"));
    return keys;
}

} // namespace

AuditPage::AuditPage(const QString &path, QWidget *parent)
    : QWidget(parent)
    , m_path(path)
    , m_filter(new QLineEdit(this))
    , m_table(new QTableWidget(0, 6, this))
    , m_detail(new QPlainTextEdit(this))
    , m_open(new QPushButton(tr("Open the object"), this))
{
    setObjectName(QStringLiteral("auditPage"));
    auto *layout = new QVBoxLayout(this);
    auto *about = new QLabel(
        tr("Every action attempted from this machine, newest first (%1).").arg(path), this);
    about->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(about);
    m_filter->setObjectName(QStringLiteral("auditFilter"));
    m_filter->setPlaceholderText(tr("Filter by time, user, action, key, outcome or message"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &AuditPage::applyFilter);
    layout->addWidget(m_filter);

    m_table->setHorizontalHeaderLabels(
        {tr("Time"), tr("User"), tr("Action"), tr("Keys"), tr("Outcome"), tr("Message")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    // One line per entry, as the object tables.
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &AuditPage::showDetail);

    auto *detailPane = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detailPane);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    m_detail->setObjectName(QStringLiteral("auditDetail"));
    m_detail->setReadOnly(true);
    m_detail->setFont(theme::fixedPitchFont());
    m_detail->setPlaceholderText(tr("Choose an entry to see all of it."));
    detailLayout->addWidget(m_detail, 1);
    auto *row = new QHBoxLayout;
    row->addStretch(1);
    m_open->setObjectName(QStringLiteral("auditOpenObject"));
    m_open->setEnabled(false);
    connect(m_open, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row < 0 || row >= m_entries.size())
            return;
        const QJsonObject &e = m_entries.at(row);
        const QStringList keys = keysOf(e);
        Q_EMIT openRequested(sectionOfAction(e.value(QLatin1String("action")).toString()),
                             keys.value(0).toUtf8());
    });
    row->addWidget(m_open);
    detailLayout->addLayout(row);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_table);
    splitter->addWidget(detailPane);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);
    reload();
}

QString AuditPage::sectionOfAction(const QString &actionId)
{
    for (const PatternUnit *unit : PatternRegistry::instance().units()) {
        for (const PatternAction &a : unit->actions()) {
            if (a.id == actionId)
                return unit->section().id;
        }
    }
    return {};
}

void AuditPage::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void AuditPage::setFilter(const QString &text)
{
    m_filter->setText(text);
}

int AuditPage::visibleRows() const
{
    int n = 0;
    for (int r = 0; r < m_table->rowCount(); ++r)
        n += m_table->isRowHidden(r) ? 0 : 1;
    return n;
}

void AuditPage::applyFilter()
{
    const QString needle = m_filter->text().trimmed();
    for (int r = 0; r < m_table->rowCount(); ++r) {
        bool match = needle.isEmpty();
        for (int c = 0; !match && c < m_table->columnCount(); ++c) {
            const QTableWidgetItem *item = m_table->item(r, c);
            match = item && item->text().contains(needle, Qt::CaseInsensitive);
        }
        m_table->setRowHidden(r, !match);
    }
}

void AuditPage::showDetail()
{
    const int row = m_table->currentRow();
    const bool valid = row >= 0 && row < m_entries.size() && !m_table->isRowHidden(row)
                       && !m_table->selectedItems().isEmpty();
    if (!valid) {
        m_detail->clear();
        m_open->setEnabled(false);
        return;
    }
    const QJsonObject &e = m_entries.at(row);
    m_detail->setPlainText(QString::fromUtf8(QJsonDocument(e).toJson(QJsonDocument::Indented)));
    const QString section = sectionOfAction(e.value(QLatin1String("action")).toString());
    const bool canOpen = !section.isEmpty() && !keysOf(e).value(0).isEmpty();
    m_open->setEnabled(canOpen);
    m_open->setToolTip(canOpen ? tr("Select %1 on its page").arg(keysOf(e).value(0))
                               : tr("This entry names no object a page lists."));
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
        m_entries.clear();
        for (qsizetype i = entries.size() - 1; i >= 0; --i)
            m_entries << entries.at(i);
        m_table->setRowCount(int(m_entries.size()));
        for (int i = 0; i < m_entries.size(); ++i) {
            const QJsonObject &e = m_entries.at(i);
            // The full local date and time to the second (ms in the tooltip,
            // with the UTC form the log keeps).
            const qint64 ms = qint64(e.value(QLatin1String("timeMs")).toDouble());
            const QString utc = e.value(QLatin1String("time")).toString();
            const QDateTime at = ms > 0 ? QDateTime::fromMSecsSinceEpoch(ms)
                                        : QDateTime::fromString(utc, Qt::ISODateWithMs);
            const QString when
                = at.isValid() ? at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                               : utc;
            const QStringList cells{when,
                                    e.value(QLatin1String("user")).toString(),
                                    e.value(QLatin1String("action")).toString(),
                                    keysOf(e).join(QLatin1String(", ")),
                                    e.value(QLatin1String("outcome")).toString(),
                                    e.value(QLatin1String("message")).toString()};
            for (int c = 0; c < cells.size(); ++c) {
                auto *item = new QTableWidgetItem(cells.at(c));
                item->setToolTip(
                    c == 0 && at.isValid()
                        ? at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz t"))
                              + QStringLiteral(" (") + utc + QLatin1Char(')')
                        : cells.at(c));
                m_table->setItem(i, c, item);
            }
        }
        // Time, user, action and outcome whole ("lock.force-rel…" hid which
        // action); keys up to a width, elided past it with the whole list in
        // the tooltip; the message takes the rest.
        const int keysCap = std::max(200, m_table->fontMetrics().averageCharWidth() * 34);
        for (int c = 0; c < m_table->columnCount() - 1; ++c) {
            m_table->resizeColumnToContents(c);
            if (c == 3 && m_table->columnWidth(c) > keysCap)
                m_table->setColumnWidth(c, keysCap);
        }
        applyFilter();
        showDetail();
    });
}

} // namespace gatehouse
