// SPDX-License-Identifier: MIT
#pragma once

#include <QLayout>
#include <QList>

namespace gatehouse {

// Lays its items out left to right and wraps them onto the next line when
// the width runs out, as text wraps: a row of buttons that never clips one
// at a narrow window. Hidden items take no room. Height for width, so a
// vertical layout gives it the lines it needs.
class FlowLayout : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr, int spacing = -1);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override { return int(m_items.size()); }
    QLayoutItem *itemAt(int index) const override { return m_items.value(index); }
    QLayoutItem *takeAt(int index) override;

    Qt::Orientations expandingDirections() const override { return {}; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
    QSize minimumSize() const override;
    QSize sizeHint() const override { return minimumSize(); }
    void setGeometry(const QRect &rect) override;

private:
    // Places the items in rect (or only measures, place false); the height
    // the lines take.
    int arrange(const QRect &rect, bool place) const;
    int gap() const;

    QList<QLayoutItem *> m_items;
    int m_spacing;
};

} // namespace gatehouse
