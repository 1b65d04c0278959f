// SPDX-License-Identifier: MIT
#pragma once

#include <alerts/alertengine.h>
#include <monitor/profile.h>

#include <QWidget>

class QLabel;
class QTableWidget;

namespace gatehouse {

// The Alerts page: what fires now (time, rule, object, value, severity) and
// the recent firings and resolutions, newest first; a click opens the object
// on its page. "Rules…" edits the rules (AlertRulesDialog); the page hands
// the new list to the engine and asks for it to be saved with the profile.
class AlertsPage : public QWidget
{
    Q_OBJECT
public:
    // Recent transitions kept on the page.
    static constexpr int MaxRecent = 500;

    explicit AlertsPage(AlertEngine *engine, QWidget *parent = nullptr);

    QTableWidget *firingTable() const { return m_firing; }
    QTableWidget *recentTable() const { return m_recent; }
    // The profile the rules are saved with: its own file, or for a built-in
    // or autodetected profile a file of that name in the user's config
    // directory (said under the lists). Written off the GUI thread.
    void setProfile(const Profile &profile);
    QString saveNote() const;
    // Opens the rule editor (the "Rules…" button).
    void editRules();

Q_SIGNALS:
    void openRequested(const QString &section, const QByteArray &key);
    // The operator changed the rules: given to the engine, being saved.
    void rulesEdited(const QList<gatehouse::AlertRule> &rules);
    // The save finished; error empty when it worked.
    void saved(const QString &path, const QString &error);

private:
    void onTransition(const AlertEvent &event);
    void refreshFiring();
    void save();
    QString savePath() const;

    AlertEngine *m_engine;
    QTableWidget *m_firing;
    QTableWidget *m_recent;
    QLabel *m_summary;
    QLabel *m_saveNote;
    Profile m_profile;
};

} // namespace gatehouse
