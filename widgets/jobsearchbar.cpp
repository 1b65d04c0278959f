// SPDX-License-Identifier: MIT
#include "jobsearchbar.h"

#include "theme.h"

#include <monitor/jobbrowser.h>

#include <patterns/patternunit.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>

namespace gatehouse {

namespace {

QString number(qint64 n)
{
    return QLocale().toString(n);
}

} // namespace

JobSearchBar::JobSearchBar(const QString &section, QWidget *parent)
    : QWidget(parent)
    , m_query(new QLineEdit(this))
    , m_state(new QComboBox(this))
    , m_go(new QPushButton(tr("Search"), this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_back(new QPushButton(tr("Back to the list"), this))
    , m_status(new QLabel(this))
{
    setObjectName(section + QStringLiteral("JobSearchBar"));
    m_query->setObjectName(section + QStringLiteral("JobSearch"));
    m_query->setPlaceholderText(tr("Search jobs: error~timeout age>1h data.customerId=4411"));
    m_query->setClearButtonEnabled(true);
    m_query->setToolTip(
        tr("Every term must hold:\n"
           "  ETIMEDOUT — the word anywhere (id, name, error, payload)\n"
           "  error~timeout — the error contains it (any case); name=SendMail — exactly\n"
           "  id=1234, attempts>2, age>1h (time in its state: s, m, h, d)\n"
           "  data.customerId=4411 — a JSON path into the job's record or payload\n"
           "  args.0~\"gold plan\" — quotes keep spaces\n"
           "Operators: = != ~ > >= < <="));
    m_state->setObjectName(section + QStringLiteral("JobSearchState"));
    m_state->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_state->setToolTip(tr("The states to read: every one, or one of the library's"));
    m_go->setObjectName(section + QStringLiteral("JobSearchGo"));
    m_stop->setObjectName(section + QStringLiteral("JobSearchStop"));
    m_back->setObjectName(section + QStringLiteral("JobSearchBack"));
    m_back->setToolTip(tr("The jobs by state again, instead of the search's"));
    m_status->setObjectName(section + QStringLiteral("JobSearchStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *row = new QHBoxLayout;
    row->addWidget(m_query, 1);
    row->addWidget(m_state);
    row->addWidget(m_go);
    row->addWidget(m_stop);
    row->addWidget(m_back);
    layout->addLayout(row);
    layout->addWidget(m_status);

    m_progressTimer.setSingleShot(true);
    m_progressTimer.setInterval(100);
    connect(&m_progressTimer, &QTimer::timeout, this, &JobSearchBar::showProgress);
    connect(m_query, &QLineEdit::returnPressed, this, &JobSearchBar::search);
    connect(m_go, &QPushButton::clicked, this, &JobSearchBar::search);
    connect(m_stop, &QPushButton::clicked, this, &JobSearchBar::stop);
    connect(m_back, &QPushButton::clicked, this, &JobSearchBar::backToList);
    connect(m_query, &QLineEdit::textChanged, this, [this](const QString &text) {
        if (text.trimmed().isEmpty() && m_showing)
            backToList();
    });
    m_query->installEventFilter(this); // Escape
    setVisible(false);
    updateButtons();
}

JobSearchBar::~JobSearchBar() = default;

bool JobSearchBar::eventFilter(QObject *watched, QEvent *event)
{
    // Escape in the field stops a search, or goes back to the list.
    if (watched == m_query && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape
        && (isSearching() || m_showing)) {
        if (isSearching())
            stop();
        else
            backToList();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

bool JobSearchBar::focusField()
{
    if (!isVisible() || !m_query->isEnabled())
        return false;
    m_query->setFocus(Qt::ShortcutFocusReason);
    m_query->selectAll();
    return true;
}

void JobSearchBar::setBrowser(JobBrowser *browser)
{
    if (browser == m_browser)
        return;
    drop();
    m_browser = browser;
    setVisible(m_browser && !m_object.key.isEmpty());
    updateButtons();
}

void JobSearchBar::setObject(const PatternObject &object)
{
    if (object.key == m_object.key && object.kind == m_object.kind) {
        m_object = object; // its members may have changed
        return;
    }
    // Another queue: a search of the last one neither runs on nor stays shown.
    drop();
    m_object = object;
    const bool wasShowing = m_showing;
    m_showing = false;
    m_shownExpression.clear();
    say({});
    {
        const QSignalBlocker block(m_state);
        const QString previous = m_state->currentData().toString();
        m_state->clear();
        m_state->addItem(tr("All states"), QString());
        if (!object.key.isEmpty()) {
            for (const QString &s : PatternUnit::of(object.kind).jobStates())
                m_state->addItem(s, s);
        }
        m_state->setCurrentIndex(std::max(0, m_state->findData(previous)));
    }
    setVisible(m_browser && !m_object.key.isEmpty());
    updateButtons();
    if (wasShowing)
        Q_EMIT cleared();
}

void JobSearchBar::search()
{
    const QString text = m_query->text().trimmed();
    if (text.isEmpty() && m_showing)
        backToList();
    else
        run(text, m_state->currentData().toString());
}

void JobSearchBar::run(const QString &text, const QString &state)
{
    if (m_object.key.isEmpty() || !m_browser)
        return;
    QString error;
    const std::optional<JobQuery> query = JobQuery::parse(text, &error);
    if (!query) {
        // The list or the hits shown stay as they were: nothing was sent.
        say(tr("Cannot search: %1 Nothing was sent.").arg(error), true);
        return;
    }
    drop();
    JobSearch::Options options;
    if (!state.isEmpty())
        options.states = {state};
    options.limit = HitLimit;
    m_search = m_browser->newSearch(m_object, *query, options, this);
    connect(m_search, &JobSearch::progressed, this, [this](const JobSearchProgress &p) {
        m_progress = p;
        if (!m_progressTimer.isActive()) {
            showProgress();
            m_progressTimer.start();
        }
    });
    connect(m_search, &JobSearch::found, this, &JobSearchBar::found);
    connect(m_search, &JobSearch::finished, this, &JobSearchBar::showEnd);
    m_progress = JobSearchProgress();
    if (!m_search->start(&error)) {
        drop();
        say(error, true);
        updateButtons();
        return;
    }
    m_shownExpression = text;
    m_shownState = state;
    m_showing = true;
    Q_EMIT started();
    updateButtons();
}

bool JobSearchBar::rerun()
{
    if (!m_showing || m_shownExpression.isEmpty() || isSearching())
        return false;
    // The search shown, not what may have been typed since.
    run(m_shownExpression, m_shownState);
    return true;
}

bool JobSearchBar::isSearching() const
{
    return m_search && m_search->isRunning();
}

void JobSearchBar::stop()
{
    if (isSearching())
        m_search->cancel(); // finished: showEnd says where it stopped
}

void JobSearchBar::backToList()
{
    drop();
    const bool wasShowing = m_showing;
    m_showing = false;
    m_shownExpression.clear();
    say({});
    updateButtons();
    if (wasShowing)
        Q_EMIT cleared();
}

void JobSearchBar::drop()
{
    m_progressTimer.stop();
    if (!m_search)
        return;
    disconnect(m_search, nullptr, this, nullptr);
    m_search->cancel();
    // Maybe inside one of its own signals: deleted once back in the event loop.
    m_search->deleteLater();
    m_search = nullptr;
}

void JobSearchBar::showProgress()
{
    if (!isSearching())
        return;
    const JobSearchProgress &p = m_progress;
    if (p.total == 0) { // the first page not read yet
        say(tr("Searching the %1 jobs…").arg(p.state));
        return;
    }
    say(tr("Searched %1 of %2 jobs (%3), %4 found")
            .arg(number(p.scanned), number(p.total), p.state, number(p.matched)));
}

void JobSearchBar::showEnd(const JobSearchResult &result)
{
    m_progressTimer.stop();
    const JobSearchProgress &p = result.progress;
    const int found = int(p.matched);
    const QString where = m_shownState.isEmpty() ? tr("every state read")
                                                 : tr("every %1 job read").arg(m_shownState);
    switch (result.end) {
    case JobSearchResult::End::Complete:
        say(tr("Done: %n job(s) found in %1 searched (%2).", nullptr, found)
                .arg(number(p.scanned), where));
        break;
    case JobSearchResult::End::Limit:
        say(tr("Stopped at %1 results, after %2 of %3 jobs: narrow the search to see others.")
                .arg(number(found), number(p.scanned), number(p.total)));
        break;
    case JobSearchResult::End::Cancelled:
        say(tr("Stopped: %n job(s) found in %1 of %2 searched.", nullptr, found)
                .arg(number(p.scanned), number(p.total)));
        break;
    case JobSearchResult::End::Failed:
        say(tr("%1 %n job(s) found before it stopped.", nullptr, found).arg(result.message), true);
        break;
    }
    if (p.unsearched > 0 && result.end != JobSearchResult::End::Failed)
        say(m_status->text()
            + tr(" %n job(s) not searched: a field over %1 KiB, which a search does not read.",
                 nullptr, int(p.unsearched))
                  .arg(JobFieldCutBytes / 1024));
    // The cost, for the operator who wonders what the search did to the server.
    m_status->setToolTip(tr("%1 job records read for payload terms; %2 s, of which %3 s waiting "
                            "for the server (paced to wait on it at most %4 % of the time).")
                             .arg(number(p.detailsRead))
                             .arg(double(p.elapsedMs) / 1000.0, 0, 'f', 1)
                             .arg(double(p.busyMs) / 1000.0, 0, 'f', 1)
                             .arg(JobSearch::Options().busyPercent));
    updateButtons();
}

void JobSearchBar::say(const QString &text, bool error)
{
    // Error sentences in the critical badge's colour, the rest as any label.
    QPalette colours;
    if (error)
        colours.setColor(QPalette::WindowText, theme::badge(Severity::Critical, palette()).text);
    m_status->setPalette(colours);
    m_status->setText(text);
    m_status->setToolTip({});
    m_status->setVisible(!text.isEmpty());
}

void JobSearchBar::updateButtons()
{
    const bool can = m_browser && !m_object.key.isEmpty();
    m_go->setEnabled(can);
    m_stop->setEnabled(isSearching());
    m_back->setVisible(m_showing);
    m_query->setEnabled(can);
    m_state->setEnabled(can);
}

} // namespace gatehouse
