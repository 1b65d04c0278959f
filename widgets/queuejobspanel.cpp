// SPDX-License-Identifier: MIT
#include "queuejobspanel.h"

#include "jobdetailtext.h"
#include "jobsearchbar.h"
#include "splitterstate.h"
#include "theme.h"

#include <decoders/payloaddecoder.h>
#include <monitor/jobbrowser.h>
#include <patterns/objectstate.h>
#include <patterns/patternunit.h>

#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTabBar>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace gatehouse {

namespace {

QString stageName(JobStage stage)
{
    switch (stage) {
    case JobStage::Waiting:
        return QueueJobsPanel::tr("Waiting");
    case JobStage::InFlight:
        return QueueJobsPanel::tr("In flight");
    case JobStage::Dead:
        return QueueJobsPanel::tr("Dead");
    case JobStage::Finished:
        return QueueJobsPanel::tr("Finished");
    }
    return {};
}

constexpr int AgeColumn = 2;
// A row's time: how long ago, or how far ahead (a delayed job's due time).
QString ageText(qint64 atMs, qint64 nowMs)
{
    return atMs > nowMs ? QueueJobsPanel::tr("in %1").arg(formatMs(atMs - nowMs))
                        : formatMs(nowMs - atMs);
}
// After the error in the model (column 0 stays the job), shown second; a
// search's hits only: a state's list has no need of it.
constexpr int StateColumn = 5;
// The tab data of the search results' tab (a stage's tab holds its JobStage).
constexpr int ResultsTab = -1;

constexpr JobStage Stages[]
    = {JobStage::Waiting, JobStage::InFlight, JobStage::Dead, JobStage::Finished};

} // namespace

QueueJobsPanel::QueueJobsPanel(const QString &section, QWidget *parent)
    : QWidget(parent)
    , m_section(section)
    , m_searchBar(new JobSearchBar(section, this))
    , m_stages(new QTabBar(this))
    , m_state(new QComboBox(this))
    , m_prev(new QPushButton(tr("Newer"), this))
    , m_next(new QPushButton(tr("Older"), this))
    , m_range(new QLabel(this))
    , m_requeueDead(new QPushButton(tr("Requeue from dead…"), this))
    , m_deadLetter(new QPushButton(tr("Move to dead…"), this))
    , m_purge(new QPushButton(tr("Purge older than…"), this))
{
    QPushButton *reload = setUpControls(section);
    buildLayout(section, reload);
    setEnabled(false);
    connectControls(reload);
}

// Names the controls; makes and returns the Reload button.
QPushButton *QueueJobsPanel::setUpControls(const QString &section)
{
    setObjectName(section + QStringLiteral("JobsPanel"));
    m_stages->setObjectName(section + QStringLiteral("JobStages"));
    m_stages->setDrawBase(false);
    m_stages->setExpanding(false);
    m_state->setObjectName(section + QStringLiteral("JobState"));
    m_state->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_state->setToolTip(tr("The library's own states in this tab, with its counts"));
    m_prev->setObjectName(section + QStringLiteral("JobsPrev"));
    m_next->setObjectName(section + QStringLiteral("JobsNext"));
    auto *reload = new QPushButton(tr("Reload"), this);
    reload->setObjectName(section + QStringLiteral("JobsReload"));
    m_range->setObjectName(section + QStringLiteral("JobsRange"));
    m_requeueDead->setObjectName(section + QStringLiteral("RequeueDead"));
    m_deadLetter->setObjectName(section + QStringLiteral("DeadLetter"));
    m_purge->setObjectName(section + QStringLiteral("PurgeDead"));
    // Not the pattern-action bar's: these name where the jobs go, and run
    // the library's own action for that (the property keeps them apart from
    // navigation in the keyboard and read-only checks).
    for (QPushButton *verb : {m_requeueDead, m_deadLetter, m_purge}) {
        verb->setProperty("jobVerb", true);
        verb->hide();
    }
    return reload;
}

// The search bar; the stage tabs and the verbs; the state, paging and
// range bar; under them the job list beside the chosen job's detail.
void QueueJobsPanel::buildLayout(const QString &section, QPushButton *reload)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_searchBar);
    auto *top = new QHBoxLayout;
    top->addWidget(m_stages);
    top->addStretch(1);
    top->addWidget(m_requeueDead);
    top->addWidget(m_deadLetter);
    top->addWidget(m_purge);
    layout->addLayout(top);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("State:"), this));
    bar->addWidget(m_state);
    bar->addWidget(m_prev);
    bar->addWidget(m_next);
    bar->addWidget(reload);
    bar->addWidget(m_range, 1);
    layout->addLayout(bar);

    auto *split = new QSplitter(Qt::Horizontal, this);
    buildJobList(section, split);
    QWidget *detailPane = buildDetailPane(section, split);
    split->addWidget(m_jobs);
    split->addWidget(detailPane);
    split->setChildrenCollapsible(false);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    persistSplitter(split, section + QStringLiteral("JobsSplitter"));
    layout->addWidget(split, 1);
}

void QueueJobsPanel::buildJobList(const QString &section, QSplitter *split)
{
    m_jobs = new QTableWidget(0, 6, split);
    m_jobs->setObjectName(section + QStringLiteral("JobList"));
    m_jobs->setHorizontalHeaderLabels(
        {tr("Job"), tr("Name"), tr("Age"), tr("Attempts"), tr("Error"), tr("State")});
    m_jobs->horizontalHeader()->moveSection(StateColumn, 1);
    m_jobs->setColumnHidden(StateColumn, true);
    // Ids, names, ages and attempts whole on one line (to a cap, past it
    // elided with the whole in the tooltip); the error takes the rest.
    m_jobs->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_jobs->horizontalHeader()->setMaximumSectionSize(
        std::max(320, fontMetrics().averageCharWidth() * 48));
    m_jobs->horizontalHeader()->setStretchLastSection(true);
    m_jobs->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_jobs->setSelectionBehavior(QAbstractItemView::SelectRows);
    // A selection: the library's actions run on each job chosen.
    m_jobs->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_jobs->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_jobs->setWordWrap(false);
    m_jobs->verticalHeader()->hide();
}

// The decoders named over the detail, and the Raw (hex) switch.
QWidget *QueueJobsPanel::buildDetailPane(const QString &section, QSplitter *split)
{
    auto *detailPane = new QWidget(split);
    m_decoder = new QLabel(detailPane);
    m_decoder->setObjectName(section + QStringLiteral("JobDecoder"));
    m_decoder->setWordWrap(true);
    m_decoder->setToolTip(tr("The decoders that read the job's payloads, outermost first"));
    m_raw = new QPushButton(tr("Raw (hex)"), detailPane);
    m_raw->setObjectName(section + QStringLiteral("JobRaw"));
    m_raw->setCheckable(true);
    m_raw->setEnabled(false);
    m_raw->setToolTip(tr("The payloads' bytes as stored (hex), instead of decoded"));
    m_detail = new QPlainTextEdit(detailPane);
    auto *detailBar = new QHBoxLayout;
    detailBar->addWidget(m_decoder, 1);
    detailBar->addWidget(m_raw);
    auto *detailLayout = new QVBoxLayout(detailPane);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addLayout(detailBar);
    detailLayout->addWidget(m_detail, 1);
    connect(m_raw, &QPushButton::toggled, this, &QueueJobsPanel::renderDetail);
    m_detail->setObjectName(section + QStringLiteral("JobDetail"));
    m_detail->setReadOnly(true);
    m_detail->setFont(theme::fixedPitchFont());
    m_detail->setPlaceholderText(tr("Choose a job to see its data, options and error."));
    return detailPane;
}

// The ages' timer, then what each control does (a verb is handed to the page).
void QueueJobsPanel::connectControls(QPushButton *reload)
{
    // Ages move with the clock, not only when a page is read again.
    auto *ages = new QTimer(this);
    ages->setInterval(1000);
    connect(ages, &QTimer::timeout, this, [this] {
        if (!isVisible())
            return;
        updateAges();
        // The detail's "ago" too, unless the operator is selecting in it.
        if (!m_detail->textCursor().hasSelection())
            renderDetail();
    });
    ages->start();

    connect(m_stages, &QTabBar::currentChanged, this, [this] {
        fillStates();
        m_offset = 0;
        requestJobs();
    });
    // By index, not text: the text carries the state's count, which changes.
    connect(m_state, &QComboBox::currentIndexChanged, this, [this] {
        m_offset = 0;
        updateVerbs();
        requestJobs();
    });
    connect(m_prev, &QPushButton::clicked, this, [this] {
        m_offset = std::max<qint64>(0, m_offset - PageSize);
        requestJobs();
    });
    connect(m_next, &QPushButton::clicked, this, [this] {
        m_offset += PageSize;
        requestJobs();
    });
    connect(reload, &QPushButton::clicked, this, &QueueJobsPanel::requestJobs);
    connect(m_jobs, &QTableWidget::itemSelectionChanged, this, [this] {
        if (m_filling)
            return;
        updateVerbs();
        Q_EMIT jobsChosen();
        const QByteArray job = chosenJob();
        if (job.isEmpty() || m_object.key.isEmpty() || !m_browser)
            return;
        forgetDetail();
        m_detail->setPlainText(tr("Reading job %1…").arg(printableBytes(job, 80)));
        if (!m_browser->showJob(m_object, job))
            m_detail->setPlainText(tr("Gatehouse cannot read one job's record of this %1 queue.")
                                       .arg(PatternUnit::of(m_object.kind).library().name));
    });
    connect(m_searchBar, &JobSearchBar::started, this, [this] { setResults(true); });
    connect(m_searchBar, &JobSearchBar::found, this, &QueueJobsPanel::addHits);
    connect(m_searchBar, &JobSearchBar::cleared, this, [this] {
        setResults(false);
        requestJobs();
    });
    auto verb = [this](JobVerb::Role role) {
        // The chosen jobs' one state (updateVerbs disables a verb otherwise).
        const QStringList states = chosenStates();
        if (m_object.key.isEmpty() || states.size() != 1)
            return;
        for (const JobVerb &v : PatternUnit::of(m_object.kind).jobVerbs(states.first())) {
            if (v.role == role) {
                Q_EMIT verbRequested(v.action, v.inputs);
                return;
            }
        }
    };
    connect(m_requeueDead, &QPushButton::clicked, this,
            [verb] { verb(JobVerb::Role::RequeueFromDead); });
    connect(m_deadLetter, &QPushButton::clicked, this, [verb] { verb(JobVerb::Role::DeadLetter); });
    connect(m_purge, &QPushButton::clicked, this, [verb] { verb(JobVerb::Role::Purge); });
}

void QueueJobsPanel::setJobBrowser(JobBrowser *browser)
{
    m_searchBar->setBrowser(browser);
    if (m_browser)
        disconnect(m_browser, nullptr, this, nullptr);
    m_browser = browser;
    if (!browser)
        return;
    connect(browser, &JobBrowser::listed, this, &QueueJobsPanel::showJobs);
    connect(browser, &JobBrowser::detailed, this, &QueueJobsPanel::showJobDetail);
}

void QueueJobsPanel::setObject(const ObjectState *s, qint64 serverNowMs)
{
    const QStringList states = s ? PatternUnit::of(s->object->kind).jobStates() : QStringList();
    const QByteArray key = s && !states.isEmpty() ? s->object->key : QByteArray();
    m_nowMs = serverNowMs;
    if (serverNowMs > 0)
        m_clockOffsetMs = serverNowMs - QDateTime::currentMSecsSinceEpoch();
    // No queue chosen, or one whose pattern lists no jobs (a hand-written
    // reliable queue): no empty browser taking the page's room.
    setVisible(!key.isEmpty());
    if (key == m_object.key) {
        if (s && !key.isEmpty()) {
            m_object = s->object; // its members may have changed
            m_searchBar->setObject(m_object);
            // A reading whose count of a listed state moved is newer than
            // the listing: its count is shown until the next listing.
            for (const StateCount &c : s->reading.library().counts) {
                for (const StateCount &old : std::as_const(m_counts)) {
                    if (old.state == c.state && old.count != c.count)
                        m_listed.remove(c.state);
                }
            }
            m_counts = s->reading.library().counts;
            updateCounts();
        }
        return;
    }
    // Another queue: nothing of the last one stays chosen, so an action
    // never targets a job the operator did not pick here.
    const QString previous = state();
    m_object = key.isEmpty() ? PatternObject() : *s->object;
    m_counts = key.isEmpty() ? QList<StateCount>() : s->reading.library().counts;
    m_listed.clear();
    m_states = states;
    m_offset = 0;
    {
        // A search of the last queue is dropped with its hits, here.
        const QSignalBlocker block(m_searchBar);
        m_searchBar->setObject(m_object);
    }
    setResults(false);
    setEnabled(!key.isEmpty());
    {
        const QSignalBlocker blockTabs(m_stages);
        while (m_stages->count() > 0)
            m_stages->removeTab(0);
        if (!key.isEmpty()) {
            const PatternUnit &unit = PatternUnit::of(m_object.kind);
            for (JobStage stage : Stages) {
                const bool has
                    = std::any_of(states.cbegin(), states.cend(),
                                  [&](const QString &st) { return unit.jobStage(st) == stage; });
                if (!has)
                    continue;
                const int tab = m_stages->addTab(stageName(stage));
                m_stages->setTabData(tab, int(stage));
            }
        }
        // The state shown before, when this library has it too; otherwise
        // In flight, where stuck work is.
        int tab = -1;
        if (!key.isEmpty()) {
            const PatternUnit &unit = PatternUnit::of(m_object.kind);
            const JobStage want
                = states.contains(previous) ? unit.jobStage(previous) : JobStage::InFlight;
            for (int i = 0; i < m_stages->count(); ++i) {
                if (m_stages->tabData(i).toInt() == int(want))
                    tab = i;
            }
        }
        m_stages->setCurrentIndex(std::max(0, tab));
    }
    {
        const QSignalBlocker blockStates(m_state);
        fillStates();
        const int keep = m_state->findData(previous);
        if (keep >= 0)
            m_state->setCurrentIndex(keep);
    }
    updateCounts();
    updateVerbs();
    if (!key.isEmpty())
        requestJobs();
}

void QueueJobsPanel::fillStates()
{
    const QSignalBlocker block(m_state);
    m_state->clear();
    if (m_object.key.isEmpty() || m_stages->currentIndex() < 0
        || m_stages->currentIndex() == resultsTab())
        return;
    const PatternUnit &unit = PatternUnit::of(m_object.kind);
    const auto stage = JobStage(m_stages->tabData(m_stages->currentIndex()).toInt());
    for (const QString &st : std::as_const(m_states)) {
        if (unit.jobStage(st) == stage)
            m_state->addItem(st, st);
    }
    m_state->setCurrentIndex(0);
    updateCounts();
    updateVerbs();
}

void QueueJobsPanel::updateCounts()
{
    if (m_object.key.isEmpty())
        return;
    // The library's own counts (Reading::counts), as of the last reading;
    // a state the library does not count shows its name alone.
    auto countOf = [this](const QString &st) -> std::optional<qint64> {
        // The job list's own total wins over the reading's count: both
        // are shown side by side ("busy (1)" above "1–1 of 1 busy").
        if (const auto listed = m_listed.constFind(st); listed != m_listed.cend())
            return *listed;
        for (const StateCount &c : std::as_const(m_counts)) {
            if (c.state == st)
                return c.count;
        }
        return std::nullopt;
    };
    for (int i = 0; i < m_state->count(); ++i) {
        const QString st = m_state->itemData(i).toString();
        const std::optional<qint64> n = countOf(st);
        const QString text = n ? tr("%1 (%2)").arg(st).arg(*n) : st;
        if (m_state->itemText(i) != text)
            m_state->setItemText(i, text);
    }
    // A tab: the sum of its states' counts, each by the library's name in
    // the tooltip ("wait 120, paused 0, delayed 3").
    const PatternUnit &unit = PatternUnit::of(m_object.kind);
    for (int t = 0; t < m_stages->count(); ++t) {
        if (t == resultsTab())
            continue;
        const auto stage = JobStage(m_stages->tabData(t).toInt());
        qint64 sum = 0;
        bool counted = false;
        QStringList parts;
        for (const QString &st : std::as_const(m_states)) {
            if (unit.jobStage(st) != stage)
                continue;
            const std::optional<qint64> n = countOf(st);
            if (n) {
                sum += *n;
                counted = true;
                parts << QStringLiteral("%1 %2").arg(st).arg(*n);
            } else {
                parts << st;
            }
        }
        const QString text
            = counted ? tr("%1 (%2)").arg(stageName(stage)).arg(sum) : stageName(stage);
        if (m_stages->tabText(t) != text)
            m_stages->setTabText(t, text);
        m_stages->setTabToolTip(
            t, tr("%1: %2").arg(unit.library().name, parts.join(QLatin1String(", "))));
    }
}

void QueueJobsPanel::updateVerbs()
{
    // Search hits in several states offer each state's verbs, disabled: a
    // verb runs with the inputs of one state (Sidekiq's "from").
    const QStringList states = m_object.key.isEmpty() ? QStringList() : chosenStates();
    QList<JobVerb> verbs;
    for (const QString &st : states) {
        for (const JobVerb &v : PatternUnit::of(m_object.kind).jobVerbs(st)) {
            if (std::none_of(verbs.cbegin(), verbs.cend(),
                             [&v](const JobVerb &had) { return had.role == v.role; }))
                verbs.append(v);
        }
    }
    const QString st = states.value(0);
    const int chosen = int(chosenJobs().size());
    const QString lib
        = m_object.key.isEmpty() ? QString() : PatternUnit::of(m_object.kind).library().name;
    auto place = [&](QPushButton *button, JobVerb::Role role) {
        const auto it = std::find_if(verbs.cbegin(), verbs.cend(),
                                     [role](const JobVerb &v) { return v.role == role; });
        // Absent where the library has no such verb: not a button that
        // can never work. Purge takes a state's old jobs, not the hits.
        const bool shown = it != verbs.cend() && !(m_results && role == JobVerb::Role::Purge);
        button->setVisible(shown);
        if (!shown)
            return;
        QString why = m_blocked;
        if (why.isEmpty() && states.size() > 1)
            why = tr("The jobs chosen are in different states (%1): choose jobs of one state.")
                      .arg(states.join(QLatin1String(", ")));
        if (why.isEmpty() && m_rightsCheck)
            why = m_rightsCheck(it->action, it->inputs);
        if (why.isEmpty() && role != JobVerb::Role::Purge && chosen == 0)
            why = tr("Choose one or more %1 jobs in the list first.").arg(st);
        button->setEnabled(why.isEmpty());
        if (!why.isEmpty()) {
            button->setToolTip(why);
        } else if (role == JobVerb::Role::Purge) {
            button->setToolTip(tr("Remove the %1 jobs older than an age you give, as %2 "
                                  "cleans them (%3); the confirmation shows the script first.")
                                   .arg(st, lib, it->action));
        } else {
            button->setToolTip(tr("%n chosen job(s): %1 runs on each, as %2 does it; the "
                                  "confirmation shows the script first.",
                                  nullptr, chosen)
                                   .arg(it->action, lib));
        }
    };
    place(m_requeueDead, JobVerb::Role::RequeueFromDead);
    place(m_deadLetter, JobVerb::Role::DeadLetter);
    place(m_purge, JobVerb::Role::Purge);
}

void QueueJobsPanel::setBlocked(const QString &why)
{
    m_blocked = why;
    updateVerbs();
}

void QueueJobsPanel::reload()
{
    // The hits as they are now: the jobs acted on may have left the state.
    if (!m_results || !m_searchBar->rerun())
        requestJobs();
}

void QueueJobsPanel::requestJobs()
{
    if (m_object.key.isEmpty() || !m_browser || state().isEmpty() || m_results)
        return;
    m_range->setText(tr("Reading…"));
    if (!m_browser->listJobs(m_object, state(), m_offset, PageSize))
        m_range->setText(tr("Gatehouse cannot list the %1 jobs of this %2 queue.")
                             .arg(state(), PatternUnit::of(m_object.kind).library().name));
}

void QueueJobsPanel::showJobs(const JobListing &page)
{
    if (m_object.key.isEmpty() || m_results || page.state != state() || page.offset != m_offset)
        return;
    // A new page: nothing chosen in it yet (the detail shown was of the old one).
    const QByteArray before = chosenJob();
    m_filling = true;
    m_jobs->clearSelection();
    m_jobs->setCurrentCell(-1, -1);
    m_jobs->setRowCount(int(page.rows.size()));
    const qint64 now = nowMs();
    for (int r = 0; r < page.rows.size(); ++r)
        fillRow(r, page.rows.at(r), page.state, now);
    if (!page.ok)
        m_range->setText(page.message);
    else if (page.total == 0)
        m_range->setText(tr("No %1 jobs.").arg(page.state));
    else
        m_range->setText(tr("%1–%2 of %3 %4")
                             .arg(page.offset + (page.rows.isEmpty() ? 0 : 1))
                             .arg(page.offset + page.rows.size())
                             .arg(page.total)
                             .arg(page.state));
    if (page.ok && m_listed.value(page.state, -1) != page.total) {
        m_listed.insert(page.state, page.total);
        updateCounts();
    }
    m_prev->setEnabled(page.offset > 0);
    m_next->setEnabled(page.offset + PageSize < page.total);
    m_filling = false;
    // The job chosen before stays chosen when it is still on the page.
    for (int r = 0; r < m_jobs->rowCount() && !before.isEmpty(); ++r) {
        if (m_jobs->item(r, 0) && m_jobs->item(r, 0)->data(Qt::UserRole).toByteArray() == before) {
            m_jobs->selectRow(r);
            return;
        }
    }
    if (!before.isEmpty())
        forgetDetail();
    m_detail->clear();
    updateVerbs();
}

void QueueJobsPanel::fillRow(int r, const JobRow &row, const QString &st, qint64 now)
{
    const QStringList cells{printableBytes(row.id, 120),
                            row.name,
                            row.atMs < 0 ? QStringLiteral("–") : ageText(row.atMs, now),
                            row.attempts < 0 ? QStringLiteral("–") : QString::number(row.attempts),
                            row.error,
                            st};
    for (int c = 0; c < cells.size(); ++c) {
        auto *cell = new QTableWidgetItem(cells.at(c));
        if (c == 0)
            cell->setData(Qt::UserRole, row.refOrId());
        if (c == AgeColumn)
            cell->setData(Qt::UserRole, row.atMs);
        cell->setToolTip(cells.at(c));
        m_jobs->setItem(r, c, cell);
    }
}

void QueueJobsPanel::setResults(bool on)
{
    m_results = on;
    // Nothing chosen among the hits stays chosen in the list, nor the other way.
    m_filling = true;
    m_jobs->clearSelection();
    m_jobs->setCurrentCell(-1, -1);
    m_jobs->setRowCount(0);
    m_filling = false;
    forgetDetail();
    m_detail->clear();
    m_jobs->setColumnHidden(StateColumn, !on);
    // The list's state and paging are not the hits': hidden, not left
    // showing another tab's state beside them.
    for (QWidget *w : std::initializer_list<QWidget *>{m_state, m_prev, m_next})
        w->setVisible(!on);
    // The hits are a tab of their own while shown, the only one enabled; the
    // list's tab is current again after them.
    {
        const QSignalBlocker block(m_stages);
        const int results = resultsTab();
        if (on && results < 0) {
            m_listTab = std::max(0, m_stages->currentIndex());
            const int t = m_stages->addTab(tr("Search results"));
            m_stages->setTabData(t, ResultsTab);
            m_stages->setTabToolTip(t, tr("The search's hits; Back to the list shows the list "
                                          "by state again."));
            m_stages->setCurrentIndex(t);
        } else if (!on && results >= 0) {
            m_stages->removeTab(results);
            m_stages->setCurrentIndex(std::min(m_listTab, m_stages->count() - 1));
        }
        for (int t = 0; t < m_stages->count(); ++t)
            m_stages->setTabEnabled(t, !on || m_stages->tabData(t).toInt() == ResultsTab);
    }
    m_range->setText(on ? tr("Search results: choose jobs to see them and act on them.")
                        : QString());
    updateVerbs();
}

void QueueJobsPanel::addHits(const QList<JobHit> &hits)
{
    if (!m_results)
        return;
    const int first = m_jobs->rowCount();
    m_jobs->setRowCount(first + int(hits.size()));
    const qint64 now = nowMs();
    for (int i = 0; i < hits.size(); ++i)
        fillRow(first + i, hits.at(i).row, hits.at(i).state, now);
    if (const int t = resultsTab(); t >= 0)
        m_stages->setTabText(t, tr("Search results (%1)").arg(m_jobs->rowCount()));
    updateVerbs();
}

int QueueJobsPanel::resultsTab() const
{
    for (int t = 0; t < m_stages->count(); ++t) {
        if (m_stages->tabData(t).toInt() == ResultsTab)
            return t;
    }
    return -1;
}

void QueueJobsPanel::showJobDetail(const JobListing &detail)
{
    if (m_object.key.isEmpty() || detail.job != chosenJob())
        return;
    m_shown = detail;
    QStringList used;
    for (const JobPayload &p : detail.payloads)
        used << tr("%1: %2").arg(p.field, p.decoder);
    m_decoder->setText(used.isEmpty() ? QString()
                                      : tr("Decoded — %1").arg(used.join(QStringLiteral("; "))));
    m_raw->setEnabled(!detail.payloads.isEmpty());
    renderDetail();
}

void QueueJobsPanel::forgetDetail()
{
    m_shown = JobListing();
    m_decoder->clear();
    m_raw->setEnabled(false);
}

void QueueJobsPanel::renderDetail()
{
    const JobListing &detail = m_shown;
    if (detail.job.isEmpty())
        return;
    QString text;
    if (m_raw->isChecked() && !detail.payloads.isEmpty()) {
        for (const JobPayload &p : detail.payloads)
            text += tr("── %1: %2 bytes as stored ──\n").arg(p.field).arg(p.size) + hexDump(p.bytes)
                    + QLatin1Char('\n');
        m_detail->setPlainText(text);
        return;
    }
    // Stack traces as lines, epoch times as dates; each payload decoded below.
    text = detail.ok ? jobDetailText(detail.detail, nowMs()) : detail.message;
    if (detail.ok && !detail.message.isEmpty())
        text = detail.message + QStringLiteral("\n\n") + text;
    for (const JobPayload &p : detail.payloads) {
        text += QStringLiteral("\n\n── %1 (%2) ──\n").arg(p.field, p.decoder);
        if (!p.note.isEmpty())
            text += p.note + QLatin1Char('\n');
        text += p.decoded.isEmpty() ? tr("(see Raw (hex))") : p.decoded;
    }
    if (text == m_detail->toPlainText())
        return;
    // Re-rendered as time passes: the reader's place kept.
    const int v = m_detail->verticalScrollBar()->value();
    const int h = m_detail->horizontalScrollBar()->value();
    m_detail->setPlainText(text);
    m_detail->verticalScrollBar()->setValue(v);
    m_detail->horizontalScrollBar()->setValue(h);
}

qint64 QueueJobsPanel::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs;
}

void QueueJobsPanel::updateAges()
{
    const qint64 now = nowMs();
    for (int r = 0; r < m_jobs->rowCount(); ++r) {
        QTableWidgetItem *cell = m_jobs->item(r, AgeColumn);
        const qint64 atMs = cell ? cell->data(Qt::UserRole).toLongLong() : -1;
        if (atMs < 0)
            continue;
        const QString text = ageText(atMs, now);
        if (cell->text() != text) {
            cell->setText(text);
            cell->setToolTip(text);
        }
    }
}

QString QueueJobsPanel::state() const
{
    return m_state->currentData().toString();
}

bool QueueJobsPanel::showState(const QString &st)
{
    if (m_object.key.isEmpty() || !m_states.contains(st))
        return false;
    const JobStage stage = PatternUnit::of(m_object.kind).jobStage(st);
    for (int t = 0; t < m_stages->count(); ++t) {
        if (m_stages->tabData(t).toInt() == int(stage)) {
            if (m_stages->currentIndex() != t) {
                const QSignalBlocker block(m_stages);
                m_stages->setCurrentIndex(t);
                fillStates();
            }
            break;
        }
    }
    const int i = m_state->findData(st);
    if (i < 0)
        return false;
    if (m_state->currentIndex() == i) {
        m_offset = 0;
        requestJobs();
    } else {
        m_state->setCurrentIndex(i); // lists it
    }
    return true;
}

QByteArray QueueJobsPanel::chosenJob() const
{
    // The row clicked last, when it is selected; else the first selected.
    const int current = m_jobs->currentRow();
    int row = -1;
    if (current >= 0 && m_jobs->selectionModel()->isRowSelected(current))
        row = current;
    else if (const auto rows = m_jobs->selectionModel()->selectedRows(); !rows.isEmpty())
        row = rows.first().row();
    const QTableWidgetItem *cell = row >= 0 ? m_jobs->item(row, 0) : nullptr;
    return cell ? cell->data(Qt::UserRole).toByteArray() : QByteArray();
}

QStringList QueueJobsPanel::chosenStates() const
{
    if (!m_results)
        return state().isEmpty() ? QStringList() : QStringList{state()};
    QList<int> rows;
    for (const QModelIndex &i : m_jobs->selectionModel()->selectedRows())
        rows << i.row();
    if (rows.isEmpty()) {
        for (int r = 0; r < m_jobs->rowCount(); ++r)
            rows << r;
    }
    QStringList states;
    for (int r : std::as_const(rows)) {
        const QTableWidgetItem *cell = m_jobs->item(r, StateColumn);
        if (cell && !states.contains(cell->text()))
            states << cell->text();
    }
    return states;
}

QList<QByteArray> QueueJobsPanel::chosenJobs() const
{
    QList<QByteArray> jobs;
    QModelIndexList rows = m_jobs->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    for (const QModelIndex &row : std::as_const(rows)) {
        if (const QTableWidgetItem *cell = m_jobs->item(row.row(), 0))
            jobs << cell->data(Qt::UserRole).toByteArray();
    }
    return jobs;
}

} // namespace gatehouse
