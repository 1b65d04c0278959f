// SPDX-License-Identifier: MIT
#pragma once

#include <monitor/profile.h>
#include <monitor/snapshot.h>

#include <QSet>
#include <QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace gatehouse {

class CandidateModel;
struct Candidate;

// The Unconfirmed page: what autodetection found but does not show, its
// evidence below AutoDetector::Threshold (Snapshot::candidates), a row per
// family of one pattern with its score and reasons. Accept writes a rule for
// the family into the profile, so the next discovery shows it on its
// pattern's page; Reject writes the family's glob to the profile's
// "rejected", so its keys are ordinary (the Other keys page). The verdicts
// are `gatehouse-cli profile accept|reject` (ProfileVerdict), confirmed
// first and written off the GUI thread; profileChanged then hands the new
// profile to the window, which gives it to the monitor.
class UnconfirmedPage : public QWidget
{
    Q_OBJECT
public:
    explicit UnconfirmedPage(bool readOnly, QWidget *parent = nullptr);
    ~UnconfirmedPage() override;

    // The profile the console runs with (an empty one when it autodetects
    // alone): verdicts are added to it, in its own file, or for a built-in
    // or autodetected profile in a file of that name in the user's config
    // directory (the Alerts page's rules go to the same file).
    // autodetecting: false when a profile without "autodetect" is in use
    // (there are no candidates then, and the page says why).
    void setProfile(const Profile &profile, bool autodetecting);
    QString profilePath() const;

    void setSnapshot(const std::shared_ptr<const Snapshot> &snapshot);
    int count() const; // the candidates listed
    CandidateModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QString summary() const; // the sentence above the table
    QString detail() const;  // the selected candidate's reasons and keys
    bool selectFamily(const QByteArray &family);
    void focusFilter();
    // Not connected: verdicts wait (the rediscovery they need cannot run).
    void setOffline(const QString &why);

    // The buttons: confirmation (Cancel the default), then the verdict on
    // the selected candidate.
    void accept() { judge(true); }
    void reject() { judge(false); }

Q_SIGNALS:
    // A verdict was written: the profile as it is now in profilePath().
    void profileChanged(const gatehouse::Profile &profile);
    // What happened (written, cancelled, nothing selected): the status bar.
    void message(const QString &text);
    // The verdict could not be made or written: one sentence for a banner.
    void verdictFailed(const QString &text);

private:
    void judge(bool accept);
    void updateRows();
    void updateSummary();
    void updateDetail();
    const Candidate *selected() const;

    CandidateModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
    QLabel *m_summary;
    QLabel *m_detail;
    QPushButton *m_accept;
    QPushButton *m_reject;
    bool m_readOnly;
    QString m_offline;
    bool m_busy = false; // a verdict is being written
    Profile m_profile;
    bool m_autodetecting = true;
    std::shared_ptr<const Snapshot> m_snapshot;
    // The candidate list the rows were made from (a new one per discovery).
    std::shared_ptr<const QList<Candidate>> m_shown;
    // Families judged since that list: left out of it until the rediscovery
    // the verdict asked for brings a new one.
    QSet<QByteArray> m_judged;
};

} // namespace gatehouse
