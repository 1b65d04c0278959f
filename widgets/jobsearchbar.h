// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/jobsearch.h>
#include <patterns/patternobject.h>

#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace gatehouse {

class JobBrowser;

// The job search above a library queue's job browser (the Queues page): an
// expression as JobQuery reads it ("error~timeout age>1h data.customerId=4411"),
// the states to read (every one, or one of the library's), Search, Stop and
// Back to the list, and one line saying where the search stands, or why the
// expression cannot be read (never a dialog: nothing is sent then).
//
// Runs a JobSearch over the window's connection (bounded pages, paced so
// waiting on the server at most JobSearch::Options::busyPercent of the time), at most HitLimit
// hits, and hands them on (found) for the browser to list and act on; keeps
// no rows itself.
class JobSearchBar : public QWidget
{
    Q_OBJECT
public:
    // A page of the job list: the hits are shown in it whole.
    static constexpr int HitLimit = 50;

    explicit JobSearchBar(const QString &section, QWidget *parent = nullptr);
    ~JobSearchBar() override;

    // What searches read through (the window's job browser, its
    // connection; not owned). Without one the bar is hidden.
    void setBrowser(JobBrowser *browser);
    // The queue searched: another one (or none) stops a search and goes
    // back to the list.
    void setObject(const PatternObject &object);
    // Runs the search shown again (after an action moved jobs): the hits
    // are where the jobs are now. False when no search is shown.
    bool rerun();
    bool isSearching() const;
    // Puts the keyboard in the field, its text selected (View > Search jobs);
    // false when the bar is not on screen (no library queue chosen).
    bool focusField();
    // A search's hits are shown (running or ended) instead of the list.
    bool isShowing() const { return m_showing; }

Q_SIGNALS:
    // A search began: the hits shown before are gone.
    void started();
    // Hits of the running search, as they are found (never one twice).
    void found(const QList<gatehouse::JobHit> &hits);
    // Back to the list: Back pressed, the field cleared, another queue.
    void cleared();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void search(); // what the field and the state choice say
    void run(const QString &expression, const QString &state);
    void stop();
    void backToList();
    void drop(); // the search run so far: its replies ignored, deleted later
    void showProgress();
    void showEnd(const JobSearchResult &result);
    void say(const QString &text, bool error = false);
    void updateButtons();

    JobBrowser *m_browser = nullptr;
    PatternObject m_object;        // empty key: none
    JobSearch *m_search = nullptr; // owned; the one whose hits are shown
    QString m_shownExpression;     // of the hits shown: rerun() reads it again
    QString m_shownState;          // empty: every state
    bool m_showing = false;
    // The latest progress, shown at most every 100 ms (a page can take
    // less than a millisecond on a near server).
    JobSearchProgress m_progress;
    QTimer m_progressTimer;

    QLineEdit *m_query;
    QComboBox *m_state;
    QPushButton *m_go;
    QPushButton *m_stop;
    QPushButton *m_back;
    QLabel *m_status;
};

} // namespace gatehouse
