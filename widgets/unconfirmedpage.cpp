// SPDX-License-Identifier: MIT
#include "unconfirmedpage.h"

#include "candidatemodel.h"
#include "environment.h"
#include "evidencetext.h"

#include <monitor/profileverdict.h>
#include <patterns/keyclassifier.h>
#include <patterns/patternunit.h>
#include <redis/redisvalue.h>

#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QThreadPool>
#include <QVBoxLayout>

namespace gatehouse {

namespace {

QByteArray judgedKey(const Candidate &c)
{
    return QByteArray(c.kind.name()) + '\0' + c.family;
}

} // namespace

UnconfirmedPage::UnconfirmedPage(bool readOnly, QWidget *parent)
    : QWidget(parent)
    , m_model(new CandidateModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit(this))
    , m_table(new QTableView(this))
    , m_summary(new QLabel(this))
    , m_detail(new QLabel(this))
    , m_accept(new QPushButton(tr("Accept…"), this))
    , m_reject(new QPushButton(tr("Reject…"), this))
    , m_readOnly(readOnly)
{
    setObjectName(QStringLiteral("unconfirmedPage"));
    auto *layout = new QVBoxLayout(this);
    m_summary->setObjectName(QStringLiteral("unconfirmedSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    auto *bar = new QHBoxLayout;
    m_filter->setObjectName(QStringLiteral("unconfirmedFilter"));
    m_filter->setPlaceholderText(tr("Filter by family, pattern or reason"));
    m_filter->setClearButtonEnabled(true);
    bar->addWidget(m_filter, 1);
    m_accept->setObjectName(QStringLiteral("acceptCandidate"));
    m_accept->setToolTip(tr("Show this family as its pattern from now on: a rule for it is "
                            "added to the profile (gatehouse-cli profile accept)."));
    m_reject->setObjectName(QStringLiteral("rejectCandidate"));
    m_reject->setToolTip(tr("Count this family's keys as ordinary from now on: its glob is "
                            "added to the profile's \"rejected\" (gatehouse-cli profile reject)."));
    if (m_readOnly) {
        for (QPushButton *b : {m_accept, m_reject})
            b->setToolTip(tr("Read-only: verdicts change the profile, and are disabled."));
    }
    bar->addWidget(m_accept);
    bar->addWidget(m_reject);
    layout->addLayout(bar);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CandidateModel::SortRole);
    m_proxy->setFilterKeyColumn(-1); // the family, the pattern and the reasons
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setObjectName(QStringLiteral("unconfirmedTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CandidateModel::Instances, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->hide();
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(CandidateModel::Evidence, QHeaderView::Stretch);
    header->setMaximumSectionSize(std::max(200, fontMetrics().averageCharWidth() * 40));
    layout->addWidget(m_table, 1);
    m_detail->setObjectName(QStringLiteral("unconfirmedDetail"));
    m_detail->setWordWrap(true);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_detail);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &UnconfirmedPage::updateDetail);
    connect(m_accept, &QPushButton::clicked, this, &UnconfirmedPage::accept);
    connect(m_reject, &QPushButton::clicked, this, &UnconfirmedPage::reject);
    updateSummary();
    updateDetail();
}

UnconfirmedPage::~UnconfirmedPage() = default;

void UnconfirmedPage::setProfile(const Profile &profile, bool autodetecting)
{
    m_profile = profile;
    m_autodetecting = autodetecting;
    updateSummary();
}

QString UnconfirmedPage::profilePath() const
{
    // As the Alerts page's savePath(): a built-in profile (":/profiles/...")
    // cannot be written, a copy goes where the user's own settings live.
    if (!m_profile.fileName.isEmpty() && !m_profile.fileName.startsWith(QLatin1Char(':')))
        return m_profile.fileName;
    const QString name = m_profile.name.isEmpty() ? QStringLiteral("autodetected") : m_profile.name;
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation)
           + QStringLiteral("/profiles/") + name + QStringLiteral(".json");
}

void UnconfirmedPage::setSnapshot(const std::shared_ptr<const Snapshot> &snapshot)
{
    const bool discoveringChanged
        = !m_snapshot || m_snapshot->discovering != snapshot->discovering
          || (snapshot->discovering && m_snapshot->scanned != snapshot->scanned);
    m_snapshot = snapshot;
    // The list changes once per discovery: nothing to do on the ticks between.
    if (snapshot->candidates != m_shown) {
        m_shown = snapshot->candidates;
        m_judged.clear();
        updateRows();
    } else if (discoveringChanged) {
        updateSummary();
    }
}

void UnconfirmedPage::updateRows()
{
    QList<Candidate> rows;
    if (m_shown) {
        for (const Candidate &c : *m_shown) {
            if (!m_judged.contains(judgedKey(c)))
                rows.append(c);
        }
    }
    m_model->setCandidates(rows);
    updateSummary();
    updateDetail();
}

int UnconfirmedPage::count() const
{
    return m_model->rowCount();
}

QString UnconfirmedPage::summary() const
{
    return m_summary->text();
}

QString UnconfirmedPage::detail() const
{
    return m_detail->text();
}

void UnconfirmedPage::updateSummary()
{
    QString text;
    if (!m_autodetecting) {
        text = tr("The profile \"%1\" names what to show: autodetection is off, so nothing is "
                  "unconfirmed. Start without --profile (or with a profile that has "
                  "\"autodetect\": true) to see what autodetection finds.")
                   .arg(m_profile.name);
    } else if (m_snapshot && m_snapshot->discovering && !m_shown) {
        text = tr("Scanning the keyspace: %1 of %2 keys…")
                   .arg(m_snapshot->scanned)
                   .arg(m_snapshot->total);
    } else if (!m_shown) {
        text = tr("Autodetection has not finished a scan yet.");
    } else if (m_model->rowCount() == 0) {
        text = tr("Nothing unconfirmed: what autodetection found is either shown on its page, "
                  "with its reasons, or counted as ordinary keys (Other keys).");
    } else {
        const int n = m_model->rowCount();
        text = (n == 1 ? tr("1 family looks like a pattern")
                       : tr("%1 families look like a pattern").arg(n))
               + tr(", but the evidence is too weak to show them (a score below %1). Accept "
                    "one to show it on its page, reject it to count its keys as ordinary; "
                    "verdicts are saved to %2 (--profile with it next time).")
                     .arg(AutoDetector::Threshold)
                     .arg(QDir::toNativeSeparators(profilePath()));
    }
    m_summary->setText(text);
}

void UnconfirmedPage::updateDetail()
{
    const Candidate *c = selected();
    if (!c) {
        m_detail->setText(m_model->rowCount() > 0 ? tr("Select a family to see its reasons.")
                                                  : QString());
    } else {
        QStringList keys;
        for (const QByteArray &k : c->sampleKeys)
            keys << printableBytes(k, 100);
        m_detail->setText(evidenceWhy(c->evidence) + QLatin1Char('\n')
                          + tr("%1: %2 instance(s) using %3 key(s), for example %4.")
                                .arg(PatternUnit::of(c->kind).title())
                                .arg(c->count)
                                .arg(c->keys)
                                .arg(keys.join(QStringLiteral(", "))));
    }
    // Read-only disables verdicts as it does every action; offline, the
    // rediscovery a verdict asks for could not run.
    const bool enabled = !m_readOnly && m_offline.isEmpty() && !m_busy && c;
    m_accept->setEnabled(enabled);
    m_reject->setEnabled(enabled);
}

const Candidate *UnconfirmedPage::selected() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return nullptr;
    return m_model->candidateAt(m_proxy->mapToSource(rows.first()).row());
}

bool UnconfirmedPage::selectFamily(const QByteArray &family)
{
    const int row = m_model->rowOf(family);
    if (row < 0)
        return false;
    m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
    return true;
}

void UnconfirmedPage::focusFilter()
{
    m_filter->setFocus();
    m_filter->selectAll();
}

void UnconfirmedPage::setOffline(const QString &why)
{
    m_offline = why;
    updateDetail();
}

void UnconfirmedPage::judge(bool accept)
{
    const Candidate *c = selected();
    if (m_readOnly) {
        Q_EMIT message(tr("Read-only: the profile was not changed."));
        return;
    }
    if (!c || !m_snapshot) {
        Q_EMIT message(tr("Select a family on the Unconfirmed page first."));
        return;
    }
    const Candidate candidate = *c;
    const QString path = profilePath();
    const PatternUnit &unit = PatternUnit::of(candidate.kind);
    const QString family = printableBytes(candidate.family, 100);
    QMessageBox box(QMessageBox::Question,
                    accept ? tr("Accept %1?").arg(family) : tr("Reject %1?").arg(family),
                    accept ? tr("Show the %n instance(s) named %1 as %2 from now on? A rule for "
                                "the family is added to the profile %3, and the keyspace is "
                                "scanned again.",
                                nullptr, int(candidate.count))
                                 .arg(family, unit.title(), QDir::toNativeSeparators(path))
                           : tr("Count the keys named %1 as ordinary from now on? Its glob %2 is "
                                "added to the \"rejected\" list of the profile %3, and the "
                                "keyspace is scanned again.")
                                 .arg(family, printableBytes(familyGlob(candidate.family), 100),
                                      QDir::toNativeSeparators(path)),
                    QMessageBox::Ok | QMessageBox::Cancel, this);
    box.setWindowTitle(environmentOf(this).titled(box.windowTitle()));
    box.button(QMessageBox::Ok)->setText(accept ? tr("Accept") : tr("Reject"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.setDetailedText(tr("gatehouse-cli profile %1 '%2' --profile %3\n\n%4")
                            .arg(accept ? QStringLiteral("accept") : QStringLiteral("reject"),
                                 family, QDir::toNativeSeparators(path),
                                 evidenceToolTip(candidate.evidence)));
    if (box.exec() != QMessageBox::Ok) {
        Q_EMIT message(tr("Cancelled: the profile was not changed."));
        return;
    }

    // The profile as it is on disk (the Alerts page may have saved rules to
    // it since), else the one the console runs with; the verdict is decided
    // against the latest discovery and written on a pool thread.
    m_busy = true;
    updateDetail();
    const Profile running = m_profile;
    const std::shared_ptr<const Snapshot> snapshot = m_snapshot;
    const std::shared_ptr<const QList<Candidate>> candidates = m_shown;
    QPointer<UnconfirmedPage> self(this);
    QThreadPool::globalInstance()->start(
        [self, accept, candidate, path, running, snapshot, candidates] {
            ProfileVerdict v;
            Profile base = running;
            QString error;
            if (QFileInfo::exists(path)) {
                if (std::optional<Profile> onDisk = Profile::load(path, &error))
                    base = *onDisk;
            }
            if (!error.isEmpty()) {
                v.message = error;
            } else {
                QDir().mkpath(QFileInfo(path).absolutePath());
                QList<PatternObject> shown;
                shown.reserve(snapshot->objects.size());
                for (const ObjectState &o : snapshot->objects)
                    shown.append(o.object);
                v = ProfileVerdict::apply(base, accept, candidate.family, path,
                                          candidates ? *candidates : QList<Candidate>(), shown,
                                          snapshot->scanned);
                v.profile.fileName = path;
            }
            QMetaObject::invokeMethod(
                self, // dropped when the page is gone
                [self, v, candidate] {
                    if (!self)
                        return;
                    self->m_busy = false;
                    if (v.result != ProfileVerdict::Result::Written) {
                        self->updateDetail();
                        Q_EMIT self->verdictFailed(v.message);
                        return;
                    }
                    self->m_profile = v.profile;
                    self->m_judged.insert(judgedKey(candidate));
                    self->updateRows();
                    Q_EMIT self->message(v.message + tr("; scanning again to show what changed."));
                    Q_EMIT self->profileChanged(v.profile);
                },
                Qt::QueuedConnection);
        });
}

} // namespace gatehouse
