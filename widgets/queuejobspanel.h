// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/jobs.h>
#include <patterns/patternobject.h>
#include <patterns/reading.h>

#include <QHash>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QTabBar;
class QTableWidget;

namespace gatehouse {

class JobBrowser;
class JobSearchBar;
struct JobHit;
struct ObjectState;

// The job browser of a library queue (the Queues page, under its table):
// Waiting / In flight / Dead tabs (and Finished, where the library keeps
// finished work), each with the library's count and, inside, the library's
// own states with theirs ("wait (120)", "delayed (3)"); a page of the chosen
// state's jobs at a time (never the whole list), several chosen at once; the
// chosen job's fields as formatted JSON, its payloads decoded (the
// decoders named above it, the raw bytes as hex a click away); and the library's verbs on the
// state shown (PatternUnit::jobVerbs: requeue from dead, move to dead,
// purge), a button only where the library has the verb.
//
// Above them a job search (JobSearchBar): while its hits are shown they take
// the list's place, each with its state; a hit chosen shows its detail as a
// listed job does, and the verbs are those of the chosen hits' state (none
// while they are in several). Back to the list, or clearing the search,
// lists by state again.
//
// Reads through the window's JobBrowser (asynchronous, bounded); runs
// nothing itself: a verb is handed to the page (verbRequested), which asks
// for its inputs and the window confirms it.
class QueueJobsPanel : public QWidget
{
    Q_OBJECT
public:
    // A page is all that is ever read.
    static constexpr int PageSize = 50;

    explicit QueueJobsPanel(const QString &section, QWidget *parent = nullptr);

    // Job lists, details and searches are read through browser; without one
    // the panel stays empty and there is no search bar.
    void setJobBrowser(JobBrowser *browser);
    // The selected object: another one (or none) starts over with nothing
    // chosen; the same one updates the counts (each reading's).
    void setObject(const ObjectState *state, qint64 serverNowMs);
    // Reads the page shown again, or runs the search shown again (after an
    // action changed the queue).
    void reload();
    // Why the verbs cannot run (read-only, not connected); empty when they can.
    void setBlocked(const QString &why);
    // Why the connected user may not run an action with inputs, empty when
    // it may or while not known (the page's ActionRightsGate, which calls
    // setBlocked again when an answer arrives): a verb refused is disabled.
    using RightsCheck
        = std::function<QString(const QString &actionId, const QHash<QString, QByteArray> &inputs)>;
    void setRightsCheck(RightsCheck check) { m_rightsCheck = std::move(check); }

    // The state listed, by the library's name ("wait", "dead"); the state
    // combo's while search results are shown (see chosenStates).
    QString state() const;
    // Search results are shown instead of a state's list.
    bool showsResults() const { return m_results; }
    // The states of the jobs chosen (of every job shown while none is),
    // each once: the list's state, or the search hits' states.
    QStringList chosenStates() const;
    // Shows state's tab and lists it; false when the library has no such state.
    bool showState(const QString &state);
    QByteArray chosenJob() const;         // the job whose detail is shown
    QList<QByteArray> chosenJobs() const; // every job selected, in list order

Q_SIGNALS:
    // The operator chose jobs in the list: the page's job actions take them.
    void jobsChosen();
    // A verb's button: the pattern's action id and the inputs the state fixes.
    void verbRequested(const QString &actionId, const QHash<QString, QByteArray> &inputs);

private:
    // The constructor's parts, in the order it runs them.
    QPushButton *setUpControls(const QString &section);
    void buildLayout(const QString &section, QPushButton *reload);
    void buildJobList(const QString &section, QSplitter *split);
    QWidget *buildDetailPane(const QString &section, QSplitter *split);
    void connectControls(QPushButton *reload);

    void fillStates(); // the current tab's states into the combo
    void updateCounts();
    void updateVerbs();
    void requestJobs();
    void showJobs(const JobListing &page);
    void showJobDetail(const JobListing &detail);
    void fillRow(int row, const JobRow &job, const QString &state, qint64 nowMs);
    void setResults(bool on); // search hits instead of the list, or back
    // The "Search results (N)" tab, current while hits are listed; -1 none.
    int resultsTab() const;
    void addHits(const QList<JobHit> &hits);
    void renderDetail(); // m_shown, decoded or as raw hex (m_raw)
    void forgetDetail(); // nothing shown: no decoders named, no hex to show

    QString m_section;
    JobBrowser *m_browser = nullptr;
    PatternObject m_object;          // the queue listed; empty key: none
    QList<StateCount> m_counts;      // the library's, as of the latest reading
    QHash<QString, qint64> m_listed; // state -> the job list's total, when listed since
    qint64 m_nowMs = 0;              // server time of the latest reading: ages
    // Server time - desktop time (ms) as of the latest reading: ages move
    // on with the clock between readings (and during an outage).
    qint64 m_clockOffsetMs = 0;
    qint64 nowMs() const;
    void updateAges();
    QStringList m_states; // the library's, in its order

    JobSearchBar *m_searchBar;
    bool m_results = false; // the search's hits are listed, not a state's page
    int m_listTab = 0;      // the tab shown before the hits, shown again after
    QTabBar *m_stages;
    QComboBox *m_state;
    QPushButton *m_prev;
    QPushButton *m_next;
    QLabel *m_range;
    QTableWidget *m_jobs;
    QPlainTextEdit *m_detail;
    QLabel *m_decoder;  // which decoders read the payloads
    QPushButton *m_raw; // "Raw (hex)": the payloads' bytes instead
    JobListing m_shown; // the detail shown
    QPushButton *m_requeueDead;
    QPushButton *m_deadLetter;
    QPushButton *m_purge;
    QString m_blocked;
    RightsCheck m_rightsCheck;
    qint64 m_offset = 0;
    bool m_filling = false; // a page is being shown: no job is being chosen
};

} // namespace gatehouse
