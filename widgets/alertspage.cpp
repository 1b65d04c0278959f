// SPDX-License-Identifier: MIT
#include "alertspage.h"

#include "alertrulesdialog.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>

namespace gatehouse {

namespace {

constexpr int SectionRole = Qt::UserRole + 1;
constexpr int KeyRole = Qt::UserRole + 2;

// Every column sized to its content on one line; the Object column (keys,
// elided in the middle, whole in the tooltip) takes the rest of the width.
QTableWidget *makeTable(const QStringList &headers, const QString &name, QWidget *parent)
{
    auto *t = new QTableWidget(0, int(headers.size()), parent);
    t->setObjectName(name);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setWordWrap(false);
    t->setTextElideMode(Qt::ElideMiddle);
    t->verticalHeader()->hide();
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
    QHeaderView *header = t->horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(int(headers.indexOf(AlertsPage::tr("Object"))),
                                 QHeaderView::Stretch);
    return t;
}

QString timeText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms).toLocalTime().toString(QStringLiteral("HH:mm:ss"));
}

// The object as every page names it ("queue Sidekiq", not the key "queues").
QString objectText(const AlertEvent &e)
{
    return e.section + QLatin1Char(' ') + (e.name.isEmpty() ? QString::fromUtf8(e.key) : e.name);
}

// Row cells; the first carries the object for a click.
void setRow(QTableWidget *t, int row, const AlertEvent &e, const QStringList &cells)
{
    for (int c = 0; c < cells.size(); ++c) {
        auto *item = new QTableWidgetItem(cells.at(c));
        item->setData(SectionRole, e.section);
        item->setData(KeyRole, e.key);
        item->setToolTip(e.sentence());
        t->setItem(row, c, item);
    }
}

} // namespace

AlertsPage::AlertsPage(AlertEngine *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_firing(makeTable({tr("Since"), tr("Rule"), tr("Object"), tr("Value"), tr("Severity")},
                         QStringLiteral("alertsFiring"), this))
    , m_recent(makeTable({tr("Time"), tr("State"), tr("Rule"), tr("Object"), tr("Value")},
                         QStringLiteral("alertsRecent"), this))
    , m_summary(new QLabel(this))
    , m_saveNote(new QLabel(this))
{
    auto *rules = new QPushButton(tr("Rules…"), this);
    rules->setObjectName(QStringLiteral("alertRulesButton"));
    m_summary->setObjectName(QStringLiteral("alertsSummary"));
    rules->setToolTip(tr("Add, edit or remove alert rules; they are saved with the profile."));
    connect(rules, &QPushButton::clicked, this, &AlertsPage::editRules);
    auto *top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(rules);
    m_saveNote->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(new QLabel(tr("<b>Firing</b>"), this));
    layout->addWidget(m_firing, 1);
    layout->addWidget(new QLabel(tr("<b>Recent</b> (newest first)"), this));
    layout->addWidget(m_recent, 2);
    layout->addWidget(m_saveNote);
    for (QTableWidget *t : {m_firing, m_recent}) {
        connect(t, &QTableWidget::itemClicked, this, [this](QTableWidgetItem *item) {
            Q_EMIT openRequested(item->data(SectionRole).toString(),
                                 item->data(KeyRole).toByteArray());
        });
    }
    connect(m_engine, &AlertEngine::transition, this, &AlertsPage::onTransition);
    refreshFiring();
}

void AlertsPage::setProfile(const Profile &profile)
{
    m_profile = profile;
    m_saveNote->setText(tr("Rules are saved to %1.").arg(QDir::toNativeSeparators(savePath())));
}

QString AlertsPage::saveNote() const
{
    return m_saveNote->text();
}

QString AlertsPage::savePath() const
{
    // A built-in profile (":/profiles/...") cannot be written: a copy with
    // the rules goes where the user's own settings live.
    if (!m_profile.fileName.isEmpty() && !m_profile.fileName.startsWith(QLatin1Char(':')))
        return m_profile.fileName;
    const QString name = m_profile.name.isEmpty() ? QStringLiteral("autodetected") : m_profile.name;
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + QStringLiteral("/profiles/") + name + QStringLiteral(".json");
}

void AlertsPage::save()
{
    const QString path = savePath();
    const QByteArray json = m_profile.toJson();
    QPointer<AlertsPage> self(this);
    m_saveNote->setText(tr("Saving the rules to %1…").arg(QDir::toNativeSeparators(path)));
    QThreadPool::globalInstance()->start([self, path, json] {
        QString error;
        QDir().mkpath(QFileInfo(path).absolutePath());
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit())
            error = file.errorString();
        QMetaObject::invokeMethod(
            self, // dropped when the page is gone
            [self, path, error] {
                if (!self)
                    return;
                self->m_saveNote->setText(
                    error.isEmpty()
                        ? tr("Rules saved to %1.").arg(QDir::toNativeSeparators(path))
                        : tr("Could not save the rules to %1: %2. Check that the folder is "
                             "writable, then edit the rules again.")
                              .arg(QDir::toNativeSeparators(path), error));
                Q_EMIT self->saved(path, error);
            },
            Qt::QueuedConnection);
    });
}

void AlertsPage::editRules()
{
    AlertRulesDialog dialog(m_engine->rules(), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_engine->setRules(dialog.rules());
    m_profile.alerts = dialog.rules();
    refreshFiring();
    Q_EMIT rulesEdited(dialog.rules());
    save();
}

void AlertsPage::onTransition(const AlertEvent &e)
{
    // Recent: newest on top, bounded.
    m_recent->insertRow(0);
    setRow(m_recent, 0, e,
           {timeText(e.atMs), e.stateId(), // firing, resolved, vanished
            e.rule.shownName(), objectText(e), e.valueText()});
    if (m_recent->rowCount() > MaxRecent)
        m_recent->setRowCount(MaxRecent);
    refreshFiring();
}

void AlertsPage::refreshFiring()
{
    const QList<AlertEvent> firing = m_engine->firing();
    m_firing->setRowCount(int(firing.size()));
    for (int i = 0; i < firing.size(); ++i) {
        const AlertEvent &e = firing.at(i);
        setRow(m_firing, i, e,
               {timeText(e.atMs), e.rule.shownName(), objectText(e), e.valueText(),
                AlertRule::severityId(e.rule.severity)});
    }
    m_summary->setText(
        m_engine->rules().isEmpty()
            ? tr("No alert rules yet: add one with Rules…")
            : QString(tr("%n firing", nullptr, int(firing.size()))
                      + tr(" · %n rule(s)", nullptr, int(m_engine->rules().size()))));
}

} // namespace gatehouse
